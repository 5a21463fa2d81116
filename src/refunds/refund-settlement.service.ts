import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import { InvoicePaymentsEvents, RefundSettled, messageOf, raiseAlert, emitSafely } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { doublingDelayMs } from '../core/queue/backoff';
import { Poller } from '../core/queue/poller';
import { CLOCK, type Clock, secondsToWait } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import { InvoiceRefund } from './refund.entity';
import { REFUNDS_OPTIONS, type ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundStore } from './refund.store';

const BATCH = 20;

/**
 * Settles an `unknown` refund by reading the invoice back: `refunds.total` ≥ baseline + amount → `succeeded`; still
 * the baseline once the request can no longer land → `failed`; anything else stays `unknown` (docs/refunds.md). Its
 * poll reads the `unknown` refunds back at their `next_check_at` (off with `workers: false`).
 */
@Injectable()
export class RefundSettlementService extends Poller<number> implements OnApplicationBootstrap {
  constructor(
    private readonly refunds: RefundStore,
    private readonly records: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    @Inject(REFUNDS_OPTIONS) private readonly options: ResolvedRefundsOptions,
    @Inject(CLOCK) clock: Clock,
  ) {
    super('refund settlement', new Logger('InvoicePayments:Refunds'), options.pollIntervalMs, clock);
  }

  onApplicationBootstrap(): void {
    if (this.options.autoStartWorker) this.start();
  }

  /** Resolves with how many rows were read back; a row that fails is logged, and the next is read. */
  protected async round(): Promise<number> {
    let read = 0;
    for (const row of await this.refunds.takeDue(BATCH)) {
      await this.settle(row).catch((err) => this.logger.error(`refund ${row.id}: ${messageOf(err)}`));
      read += 1;
    }
    return read;
  }

  /** Reads the invoice back once; returns the row now. */
  async settle(refund: InvoiceRefund): Promise<InvoiceRefund> {
    if (refund.state !== 'unknown') return refund;
    if (refund.baselineCents === null) {
      // Marked unknown before the request could leave (it leaves only once the baseline is stored).
      await this.finish(refund, 'failed', 'never sent', null);
      return this.refunds.reread(refund);
    }
    const record = await this.records.get(refund.invoiceRecordId);
    const invoice = await this.gateway
      .findInvoiceById(record.gatewayId ?? '')
      .catch((err: unknown) => `could not read the invoice back: ${messageOf(err)}`);
    if (typeof invoice === 'string' || !invoice) {
      return this.later(refund, invoice || 'the service did not find the invoice');
    }
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source: 'provider', invoice });
    const total = invoice.refunds.totalCents ?? 0;
    const baseline = refund.baselineCents;
    const seen = `refunds.total ${centsToDecimalString(total)} (before: ${centsToDecimalString(baseline)})`;
    if (total >= baseline + refund.amountCents) {
      await this.finish(refund, 'succeeded', `confirmed: ${seen}`, record.gatewayId);
      this.logger.log(`refund ${refund.id}: made at the service (${seen})`);
      return this.refunds.reread(refund);
    }
    const landed = this.clock.now() >= (refund.settlesAt?.getTime() ?? 0);
    if (total === baseline && landed) {
      const reason = `not made: ${seen} after the request could have landed`;
      await this.finish(refund, 'failed', reason, record.gatewayId);
      this.logger.warn(`refund ${refund.id}: ${reason}`);
      return this.refunds.reread(refund);
    }
    const unclear = total === baseline ? `not seen yet: ${seen}` : `unclear: ${seen} moved by another amount`;
    return this.later(refund, unclear);
  }

  /** The one caller that moves the `unknown` refund emits `RefundSettled`. */
  async finish(
    refund: InvoiceRefund,
    state: RefundSettled['state'],
    reason: string,
    gatewayId: string | null,
  ) {
    if (!(await this.refunds.move(refund.id, ['unknown'], { state, reason: clip(reason, 2000) }))) return;
    const event: RefundSettled = {
      refundId: refund.id,
      invoiceRecordId: refund.invoiceRecordId,
      gatewayId,
      state,
      amountCents: refund.amountCents,
      reason,
    };
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.RefundSettled, event);
  }

  /** Seconds until the next read-back of an unknown refund (for "retry in N s"). */
  retryAfterSeconds(refund: InvoiceRefund): number {
    const now = this.clock.now();
    const next = refund.nextCheckAt?.getTime() ?? now + this.options.recheckMs;
    return secondsToWait(next - now);
  }

  /** Read again after a backoff; past `unresolvedAlertMs`, alert a person once. */
  private async later(refund: InvoiceRefund, reason: string): Promise<InvoiceRefund> {
    const checks = refund.checks + 1;
    const wait = doublingDelayMs(checks, this.options.recheckMs, this.options.maxRecheckMs);
    const now = this.clock.now();
    const stuck = now - refund.createdAt.getTime() >= this.options.unresolvedAlertMs;
    const alert = stuck && !refund.alerted;
    await this.refunds.move(refund.id, ['unknown'], {
      checks,
      nextCheckAt: new Date(now + wait),
      reason: clip(reason, 2000),
      ...(alert ? { alerted: true } : {}),
    });
    if (alert) {
      const message =
        `refund ${refund.id} of R$ ${centsToDecimalString(refund.amountCents)} (invoice record ` +
        `${refund.invoiceRecordId}) is still unsettled since ${refund.createdAt.toISOString()}: ${reason}. ` +
        `Check the service's panel; no other refund of this invoice is sent until it is settled.`;
      const unresolved = { orderId: null, invoiceRecordId: refund.invoiceRecordId, message };
      raiseAlert(this.events, this.logger, { kind: 'refund_unresolved', ...unresolved });
    }
    return this.refunds.reread(refund);
  }
}
