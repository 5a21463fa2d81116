import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoiceRecordStore } from '../checkout/invoice-record.store';
import { InvoicePaymentsAlert, InvoicePaymentsEvents, RefundSettled } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { clip } from '../core/text-bounds';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import { InvoiceRefund } from './refund.entity';
import { REFUNDS_OPTIONS } from './refund.options';
import { ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundStore } from './refund.store';

/**
 * Settles a refund whose answer was lost (`unknown`) by reading the invoice back: the service's `refunds.total`
 * against the total it had just before the request left (`baselineCents`).
 *
 * - total ≥ baseline + amount → `succeeded`: the refund was made.
 * - total = baseline once the request can no longer land (`settlesAt`) → `failed`: it was not made.
 * - anything else (still inside the window, the service cannot be asked, or a total that moved by another amount:
 *   someone refunded elsewhere meanwhile) → stays `unknown`, read again later with backoff; after
 *   `unresolvedAlertMs` a `refund_unresolved` alert asks a person.
 * Until then the refund holds its invoice's in-flight slot: no other refund is sent.
 */
@Injectable()
export class RefundSettlementService {
  private readonly logger = new Logger('InvoicePayments:Refunds');

  constructor(
    private readonly refunds: RefundStore,
    private readonly records: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    @Inject(REFUNDS_OPTIONS) private readonly options: ResolvedRefundsOptions,
  ) {}

  /** Reads the invoice back once and settles the refund if the service's total decides it. Returns the row now. */
  async settle(refund: InvoiceRefund): Promise<InvoiceRefund> {
    if (refund.state !== 'unknown') return refund;
    if (refund.baselineCents === null) {
      // Marked unknown before the request could leave (it leaves only once the baseline is stored).
      await this.finish(refund, 'failed', 'never sent', null);
      return this.current(refund);
    }
    const record = await this.records.get(refund.invoiceRecordId);
    let invoice: Invoice | null;
    try {
      invoice = await this.gateway.findInvoiceById(record.gatewayId ?? '');
    } catch (err) {
      return this.later(refund, `could not read the invoice back: ${why(err)}`);
    }
    if (!invoice) return this.later(refund, 'the service did not find the invoice');
    await this.status.apply({
      recordId: record.id,
      code: invoice.status.code,
      source: 'provider',
      invoice,
    });
    const total = invoice.refunds.totalCents ?? 0;
    const baseline = refund.baselineCents;
    const seen = `refunds.total ${centsToDecimalString(total)} (before: ${centsToDecimalString(baseline)})`;
    if (total >= baseline + refund.amountCents) {
      await this.finish(refund, 'succeeded', `confirmed: ${seen}`, record.gatewayId);
      this.logger.log(`refund ${refund.id}: made at the service (${seen})`);
      return this.current(refund);
    }
    const landed = Date.now() >= (refund.settlesAt?.getTime() ?? 0);
    if (total === baseline && landed) {
      const reason = `not made: ${seen} after the request could have landed`;
      await this.finish(refund, 'failed', reason, record.gatewayId);
      this.logger.warn(`refund ${refund.id}: ${reason}`);
      return this.current(refund);
    }
    const unclear = total === baseline ? `not seen yet: ${seen}` : `unclear: ${seen} moved by another amount`;
    return this.later(refund, unclear);
  }

  /**
   * Moves an `unknown` refund to `state` and, if this call moved it (exactly one caller does), emits
   * `RefundSettled` after the move (no transaction is open). A throwing listener is logged, never the caller's
   * problem: the row has settled either way.
   */
  async finish(
    refund: InvoiceRefund,
    state: RefundSettled['state'],
    reason: string,
    gatewayId: string | null,
  ): Promise<boolean> {
    const moved = await this.refunds.move(refund.id, ['unknown'], { state, reason: clip(reason, 2000) });
    if (!moved) return false;
    const event: RefundSettled = {
      refundId: refund.id,
      invoiceRecordId: refund.invoiceRecordId,
      gatewayId,
      state,
      amountCents: refund.amountCents,
      reason,
    };
    this.announce(InvoicePaymentsEvents.RefundSettled, event);
    return true;
  }

  /** Seconds until the next read-back of an unknown refund (for "retry in N s"). */
  retryAfterSeconds(refund: InvoiceRefund): number {
    const next = refund.nextCheckAt?.getTime() ?? Date.now() + this.options.recheckMs;
    return Math.max(1, Math.ceil((next - Date.now()) / 1000));
  }

  /** Not decided: read again after a backoff; once past `unresolvedAlertMs`, alert a person (once). */
  private async later(refund: InvoiceRefund, reason: string): Promise<InvoiceRefund> {
    const checks = refund.checks + 1;
    const wait = Math.min(this.options.maxRecheckMs, this.options.recheckMs * 2 ** Math.min(checks - 1, 20));
    const stuck = Date.now() - refund.createdAt.getTime() >= this.options.unresolvedAlertMs;
    const alert = stuck && !refund.alerted;
    await this.refunds.move(refund.id, ['unknown'], {
      checks,
      nextCheckAt: new Date(Date.now() + wait),
      reason: clip(reason, 2000),
      ...(alert ? { alerted: true } : {}),
    });
    if (alert) this.alert(refund, reason);
    return this.current(refund);
  }

  private alert(refund: InvoiceRefund, reason: string): void {
    const message =
      `refund ${refund.id} of R$ ${centsToDecimalString(refund.amountCents)} (invoice record ` +
      `${refund.invoiceRecordId}) is still unsettled since ${refund.createdAt.toISOString()}: ${reason}. ` +
      `Check the service's panel; no other refund of this invoice is sent until it is settled.`;
    this.logger.error(message);
    const alert: InvoicePaymentsAlert = {
      kind: 'refund_unresolved',
      orderId: null,
      invoiceRecordId: refund.invoiceRecordId,
      message,
    };
    this.announce(InvoicePaymentsEvents.Alert, alert);
  }

  /** Emits after the row moved; a throwing listener is logged, never the settling caller's problem. */
  private announce(name: string, payload: unknown): void {
    try {
      this.events.emit(name, payload);
    } catch (err) {
      this.logger.error(`a listener of ${name} threw: ${why(err)}`);
    }
  }

  private async current(refund: InvoiceRefund): Promise<InvoiceRefund> {
    return (await this.refunds.get(refund.id)) ?? refund;
  }
}

export function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
