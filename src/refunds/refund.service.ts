import { randomUUID } from 'node:crypto';
import { messageOf } from '../core/events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../core/invoice.errors';
import { assertAllowed, refundableCents } from '../core/invoice-actions';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { CLOCK, type Clock } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import { GatewayOutcomeUnknownError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString, MAX_SERVICE_AMOUNT_CENTS } from '../gateway/money';
import { statusIs } from '../domain/status-table';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { RefundFailedError, RefundInProgressError, RefundRepeatedError } from './errors';
import { InvoiceRefund } from './refund.entity';
import { REFUNDS_OPTIONS, type ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundSettlementService } from './refund-settlement.service';
import { RefundStore } from './refund.store';

/** One refund asked for. */
export interface RefundRequest {
  invoiceRecordId: string;
  amountCents: number;
  /** Who asked (`admin:<actor>`, `provider`, `medusa`, `vendure`). */
  requestedBy: string;
  /** The same key always names the same refund (docs/refunds.md). */
  idempotencyKey?: string;
}

/** `succeeded`, or `unknown` while its outcome is being confirmed. */
type RefundOutcome = { refund: InvoiceRefund; record: InvoiceRecord };

const REPEAT_POLL_MS = 50;
const KEY = /^[\x21-\x7e]{1,128}$/;

/** Refunds exactly once: ledger row (the invoice's one in-flight slot) → send → lost answer read back. */
@Injectable()
export class RefundService {
  private readonly logger = new Logger('InvoicePayments:Refunds');

  constructor(
    private readonly refunds: RefundStore,
    private readonly records: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    private readonly settlement: RefundSettlementService,
    @Inject(REFUNDS_OPTIONS) private readonly options: ResolvedRefundsOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Refunds `amountCents` of a paid invoice once: `succeeded`, or `unknown` while being confirmed. */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const { amountCents, idempotencyKey } = request;
    if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > MAX_SERVICE_AMOUNT_CENTS) {
      throw new CheckoutValidationError({ amount: ['must be a whole number of cents from 1 up'] });
    }
    if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !KEY.test(idempotencyKey))) {
      throw new CheckoutValidationError({ idempotencyKey: ['must be 1 to 128 printable characters'] });
    }
    const record = await this.records.get(request.invoiceRecordId);
    if (idempotencyKey === undefined) await this.refuseRepeat(record.id, amountCents);
    else {
      const existing = await this.refunds.byKey(record.id, idempotencyKey);
      if (existing) return this.repeat(existing, amountCents, record);
    }
    await this.settleInFlight(record);
    assertAllowed('refund', record, 'nothing_left'); // what remains is checked against the service's total
    const claim = await this.refunds.claim({
      invoiceRecordId: record.id,
      amountCents,
      requestedBy: clip(request.requestedBy, 128),
      idempotencyKey: idempotencyKey ?? `auto:${randomUUID()}`,
    });
    if ('sameKey' in claim) return this.repeat(claim.sameKey, amountCents, record);
    if ('inFlight' in claim) {
      const holder = claim.inFlight ?? (await this.refunds.inFlight(record.id));
      if (!holder) return this.refund(request); // it settled meanwhile: go round once more
      throw new RefundInProgressError(record.id, holder);
    }
    // A keyless twin may have settled between the look above and the claim: looked at again while holding the slot.
    if (idempotencyKey === undefined) await this.refuseRepeat(record.id, amountCents, claim.claimed);
    return this.send(claim.claimed, record);
  }

  /**
   * Waits for the outcome of an `unknown` refund: read back on the ledger's own schedule (its `next_check_at`) until
   * it settles, and once more when its window closes (`settlesAt`: an unchanged total then means not made). Returns
   * the row then: still `unknown` only when the service could not tell (unreachable, or a total moved by another
   * amount), and the ledger goes on confirming it. For a host that keeps no refund pending (Medusa, docs/medusa.md).
   */
  async awaitOutcome(refund: InvoiceRefund): Promise<InvoiceRefund> {
    let row = await this.refunds.reread(refund);
    const until = row.settlesAt?.getTime() ?? this.clock.now();
    while (row.state === 'unknown') {
      const now = this.clock.now();
      const next = Math.min(until, row.nextCheckAt?.getTime() ?? until);
      if (next > now) await sleep(next - now);
      const closed = this.clock.now() >= until;
      row = await this.settlement.settle(await this.refunds.reread(row));
      if (closed) break;
    }
    return row;
  }

  /** The invoice's refunds, newest first, and what remains refundable (in flight counts as spent). */
  async ledger(record: InvoiceRecord): Promise<{ refundableCents: number; refunds: InvoiceRefund[] }> {
    const refunds = await this.refunds.list(record.id);
    const { succeededCents, inFlightCents } = await this.refunds.totals(record.id);
    const spent = Math.max(record.refundedCents, succeededCents) + inFlightCents;
    return { refundableCents: refundableCents({ ...record, refundedCents: spent }), refunds };
  }

  private async repeat(refund: InvoiceRefund, amountCents: number, record: InvoiceRecord) {
    if (refund.amountCents !== amountCents) {
      throw new CheckoutValidationError({
        idempotencyKey: [`already names refund ${refund.id} of ${centsToDecimalString(refund.amountCents)}`],
      });
    }
    let row = refund;
    const deadline = this.landsUntil();
    while (row.state === 'pending' && this.clock.now() < deadline) {
      await sleep(REPEAT_POLL_MS); // the first caller is sending it
      row = await this.refunds.reread(row);
    }
    if (row.state === 'pending') throw new RefundInProgressError(record.id, row);
    if (row.state === 'unknown') row = await this.settlement.settle(row);
    if (row.state === 'failed') throw new RefundFailedError(row);
    return { refund: row, record: await this.records.get(record.id) };
  }

  /** Only once the invoice's refund in flight is settled may another one be sent. */
  private async settleInFlight(record: InvoiceRecord): Promise<void> {
    const flying = await this.refunds.inFlight(record.id);
    if (!flying) return;
    if (flying.state === 'pending') {
      const stale = this.landsUntil(flying.updatedAt.getTime()) < this.clock.now();
      if (!stale) throw new RefundInProgressError(record.id, flying);
      // Its sender died: sent only if its baseline was stored (the request leaves after that).
      await this.refunds.move(flying.id, ['pending'], { state: 'unknown', nextCheckAt: this.clock.date() });
    }
    const now = await this.settlement.settle(await this.refunds.reread(flying));
    if (now.state === 'pending' || now.state === 'unknown') throw new RefundInProgressError(record.id, now);
  }

  private async send(refund: InvoiceRefund, record: InvoiceRecord): Promise<RefundOutcome> {
    const invoice = await this.gateway.findInvoiceById(record.gatewayId ?? '').catch(async (err: unknown) => {
      await this.fail(refund, `not sent: the invoice could not be read first (${messageOf(err)})`);
      throw err;
    });
    if (!invoice) {
      await this.fail(refund, 'not sent: the service did not find the invoice');
      throw new InvoiceOperationNotAllowedError('refund', record.id, 'the service did not find the invoice');
    }
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source: 'provider', invoice });
    if (!statusIs(invoice.status.code, 'refundable')) {
      await this.fail(refund, `not sent: the invoice is in status ${invoice.status.code}`);
      assertAllowed('refund', { ...record, statusCode: invoice.status.code });
    }
    const baseline = invoice.refunds.totalCents ?? 0;
    const { succeededCents } = await this.refunds.totals(record.id);
    const fresh = await this.records.get(record.id);
    const paid = invoice.amounts.paidCents ?? invoice.amounts.grossCents ?? record.amountCents;
    const remaining = paid - Math.max(baseline, succeededCents, fresh.refundedCents);
    if (refund.amountCents > remaining) {
      const most = centsToDecimalString(Math.max(0, remaining));
      await this.fail(refund, `not sent: above what remains refundable (${most})`);
      throw new CheckoutValidationError({
        amount: [`must be a whole number of cents from 1 to ${most} (refundable)`],
      });
    }
    const settlesAt = new Date(this.landsUntil());
    const stored = { baselineCents: baseline, settlesAt };
    if (!(await this.refunds.move(refund.id, ['pending'], stored))) {
      throw new RefundInProgressError(record.id, await this.refunds.reread(refund));
    }
    let answer: Invoice;
    try {
      answer = await this.gateway.refundInvoice({
        id: record.gatewayId ?? '',
        invoiceId: record.gatewayInvoiceId ?? '',
        amountCents: refund.amountCents,
        refundableCents: remaining,
      });
    } catch (err) {
      if (isGatewayError(err) && !(err instanceof GatewayOutcomeUnknownError)) {
        await this.fail(refund, `refused: ${err.message}`);
        throw err;
      }
      const lost = messageOf(err);
      this.logger.warn(`refund ${refund.id}: outcome unknown (${lost}); reading the invoice back`);
      await this.refunds.move(refund.id, ['pending'], {
        state: 'unknown',
        nextCheckAt: new Date(this.clock.now() + this.options.recheckMs),
        reason: clip(`answer lost: ${lost}`, 2000),
      });
      const row = await this.settlement.settle({ ...refund, ...stored, state: 'unknown' });
      if (row.state === 'failed') throw new RefundFailedError(row);
      return { refund: row, record: await this.records.get(record.id) };
    }
    // Marked unknown meanwhile (a caller took it for a dead sender's): settled from there, and announced.
    if (!(await this.refunds.move(refund.id, ['pending'], { state: 'succeeded', reason: null }))) {
      await this.settlement.finish(refund, 'succeeded', 'made: the service answered', record.gatewayId);
    }
    const code = answer.status.code;
    await this.status.apply({ recordId: record.id, code, source: 'operation', invoice: answer });
    this.logger.log(
      `refund ${refund.id}: R$ ${centsToDecimalString(refund.amountCents)} of invoice ${record.gatewayId} made`,
    );
    return { refund: await this.refunds.reread(refund), record: await this.records.get(record.id) };
  }

  /** Until when a refund request sent at `sentAt` could still land at the service. */
  private landsUntil(sentAt = this.clock.now()): number {
    return sentAt + this.gateway.writeTimeoutMs + this.options.lateMarginMs;
  }

  private async fail(refund: InvoiceRefund, reason: string): Promise<void> {
    await this.refunds.move(refund.id, ['pending'], { state: 'failed', reason: clip(reason, 2000) });
  }

  /** `own`, this call's row, is closed unsent. */
  private async refuseRepeat(
    invoiceRecordId: string,
    amountCents: number,
    own?: InvoiceRefund,
  ): Promise<void> {
    const window = this.options.repeatWindowMs;
    const since = new Date(this.clock.now() - window);
    const earlier = await this.refunds.latestSimilar(invoiceRecordId, amountCents, since, own?.id);
    if (!earlier) return;
    if (own) await this.fail(own, `not sent: repeats refund ${earlier.id} (same amount, no idempotency key)`);
    throw new RefundRepeatedError(invoiceRecordId, earlier, new Date(earlier.createdAt.getTime() + window));
  }
}
