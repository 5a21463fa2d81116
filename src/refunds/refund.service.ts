import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../checkout/errors';
import { InvoiceRecordStore } from '../checkout/invoice-record.store';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { clip } from '../core/text-bounds';
import { GatewayOutcomeUnknownError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString, MAX_SERVICE_AMOUNT_CENTS } from '../gateway/money';
import { REFUNDABLE_CODES } from '../gateway/status';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { RefundFailedError, RefundInProgressError, RefundRepeatedError } from './errors';
import { InvoiceRefund } from './refund.entity';
import { REFUNDS_OPTIONS } from './refund.options';
import { ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundSettlementService, why } from './refund-settlement.service';
import { RefundStore } from './refund.store';

/** One refund asked for. */
export interface RefundRequest {
  invoiceRecordId: string;
  /** Cents, 1 to what remains refundable. */
  amountCents: number;
  /** Who asked (`admin:<actor>`, `provider`, `medusa`, `vendure`), kept on the ledger row. */
  requestedBy: string;
  /**
   * The same key always names the same refund: a repeated call never sends twice and gets the first one's result.
   * Without one, the same amount within the repeat window is refused (see {@link RefundService.refund}).
   */
  idempotencyKey?: string;
}

/** What a refund came to: `succeeded`, or `unknown` while its outcome is being confirmed. */
export interface RefundOutcome {
  refund: InvoiceRefund;
  record: InvoiceRecord;
}

/** How often a caller repeating a refund still being sent looks at its row again. */
const REPEAT_POLL_MS = 50;
const KEY = /^[\x21-\x7e]{1,128}$/;

/**
 * Refunds exactly once. Each refund is a ledger row written before its request leaves; the database allows one
 * refund in flight per invoice (a unique slot), so concurrent requests, in one app instance or many, send one
 * request: the others get {@link RefundInProgressError}, or with the same idempotency key the first one's result.
 *
 * Just before sending, the invoice is read from the service: its status must allow a refund, the amount must fit
 * what remains (the service's `refunds.total`, the ledger's succeeded refunds and the recorded total, whichever is
 * highest), and that `refunds.total` is kept as the row's baseline. A lost answer (5xx, timeout, dropped
 * connection) leaves the row `unknown`: {@link RefundSettlementService} reads the invoice back at once and then on a
 * schedule, and no other refund of the invoice is sent before it is settled.
 *
 * Without a caller's key, a refund of the same amount of the same invoice as one asked for within
 * `refunds.repeatWindowMs` (and not failed) is refused with {@link RefundRepeatedError}: it may be a retry (a double
 * click) or a second refund meant on purpose, and answering it with the earlier refund would tell a caller that
 * meant a second one that money moved when none did. Otherwise it gets a key of its own (`auto:<uuid>`).
 */
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
  ) {}

  /**
   * Refunds `amountCents` of a paid invoice once. Resolves with the refund `succeeded`, or `unknown` while its
   * outcome is being confirmed (the caller must not refund again; repeat with the same key for its result). Throws
   * `CheckoutValidationError` (amount, key), `InvoiceOperationNotAllowedError` (status), `RefundInProgressError`,
   * `RefundRepeatedError` (no key, same amount within the repeat window), `RefundFailedError` (the key names a
   * failed refund) or the service's refusal (a `GatewayError`).
   */
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
    this.allow(record, REFUNDABLE_CODES.includes(record.statusCode ?? -1));
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
    // A keyless twin may have been made and settled between the look above and the claim: looked at again while
    // this row holds the invoice's slot, so no other refund can start meanwhile.
    if (idempotencyKey === undefined) await this.refuseRepeat(record.id, amountCents, claim.claimed);
    return this.send(claim.claimed, record);
  }

  /** The invoice's refunds, newest first, and what remains refundable (refunds in flight count as spent). */
  async ledger(record: InvoiceRecord): Promise<{ refundableCents: number; refunds: InvoiceRefund[] }> {
    const refunds = await this.refunds.list(record.id);
    const { succeededCents, inFlightCents } = await this.refunds.totals(record.id);
    const paid = record.paidCents ?? record.grossCents ?? record.amountCents;
    const spent = Math.max(record.refundedCents, succeededCents) + inFlightCents;
    return { refundableCents: Math.max(0, paid - spent), refunds };
  }

  /** A refund already asked for under this key: its result, never a second request. */
  private async repeat(refund: InvoiceRefund, amountCents: number, record: InvoiceRecord) {
    if (refund.amountCents !== amountCents) {
      throw new CheckoutValidationError({
        idempotencyKey: [`already names refund ${refund.id} of ${centsToDecimalString(refund.amountCents)}`],
      });
    }
    let row = refund;
    const deadline = Date.now() + this.gateway.writeTimeoutMs + this.options.lateMarginMs;
    while (row.state === 'pending' && Date.now() < deadline) {
      await sleep(REPEAT_POLL_MS); // the first caller is sending it
      row = (await this.refunds.get(row.id)) ?? row;
    }
    if (row.state === 'pending') throw new RefundInProgressError(record.id, row);
    if (row.state === 'unknown') row = await this.settlement.settle(row);
    if (row.state === 'failed') throw new RefundFailedError(row);
    return { refund: row, record: await this.records.get(record.id) };
  }

  /** An unknown refund of the invoice is read back now: only once it is settled may another one be sent. */
  private async settleInFlight(record: InvoiceRecord): Promise<void> {
    const flying = await this.refunds.inFlight(record.id);
    if (!flying) return;
    if (flying.state === 'pending') {
      const stale =
        Date.now() - flying.updatedAt.getTime() > this.gateway.writeTimeoutMs + this.options.lateMarginMs;
      if (!stale) throw new RefundInProgressError(record.id, flying);
      // Its sender died: sent only if its baseline was stored (the request leaves after that).
      await this.refunds.move(flying.id, ['pending'], { state: 'unknown', nextCheckAt: new Date() });
    }
    const now = await this.settlement.settle((await this.refunds.get(flying.id)) ?? flying);
    if (now.state === 'pending' || now.state === 'unknown') throw new RefundInProgressError(record.id, now);
  }

  /** Reads the invoice, checks the amount, stores the baseline, sends; records what came of it. */
  private async send(refund: InvoiceRefund, record: InvoiceRecord): Promise<RefundOutcome> {
    let invoice: Invoice | null;
    try {
      invoice = await this.gateway.findInvoiceById(record.gatewayId ?? '');
    } catch (err) {
      await this.fail(refund, `not sent: the invoice could not be read first (${why(err)})`);
      throw err;
    }
    if (!invoice) {
      await this.fail(refund, 'not sent: the service did not find the invoice');
      throw new InvoiceOperationNotAllowedError('refund', record.id, 'the service did not find the invoice');
    }
    await this.status.apply({
      recordId: record.id,
      code: invoice.status.code,
      source: 'provider',
      invoice,
    });
    if (!REFUNDABLE_CODES.includes(invoice.status.code)) {
      await this.fail(refund, `not sent: the invoice is in status ${invoice.status.code}`);
      this.allow({ ...record, statusCode: invoice.status.code }, false);
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
    const settlesAt = new Date(Date.now() + this.gateway.writeTimeoutMs + this.options.lateMarginMs);
    if (!(await this.refunds.move(refund.id, ['pending'], { baselineCents: baseline, settlesAt }))) {
      throw new RefundInProgressError(record.id, (await this.refunds.get(refund.id)) ?? refund);
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
      return this.sendFailed({ ...refund, baselineCents: baseline, settlesAt }, record, err);
    }
    // Marked unknown meanwhile (a caller took it for a dead sender's): settled from there, and announced.
    if (!(await this.refunds.move(refund.id, ['pending'], { state: 'succeeded', reason: null }))) {
      await this.settlement.finish(refund, 'succeeded', 'made: the service answered', record.gatewayId);
    }
    await this.status.apply({
      recordId: record.id,
      code: answer.status.code,
      source: 'operation',
      invoice: answer,
    });
    this.logger.log(
      `refund ${refund.id}: R$ ${centsToDecimalString(refund.amountCents)} of invoice ${record.gatewayId} made`,
    );
    return {
      refund: (await this.refunds.get(refund.id)) ?? refund,
      record: await this.records.get(record.id),
    };
  }

  /** A refusal settles the refund as failed; a lost answer leaves it unknown and reads the invoice back at once. */
  private async sendFailed(
    refund: InvoiceRefund,
    record: InvoiceRecord,
    err: unknown,
  ): Promise<RefundOutcome> {
    if (isGatewayError(err) && !(err instanceof GatewayOutcomeUnknownError)) {
      await this.fail(refund, `refused: ${err.message}`);
      throw err;
    }
    this.logger.warn(`refund ${refund.id}: outcome unknown (${why(err)}); reading the invoice back`);
    await this.refunds.move(refund.id, ['pending'], {
      state: 'unknown',
      nextCheckAt: new Date(Date.now() + this.options.recheckMs),
      reason: clip(`answer lost: ${why(err)}`, 2000),
    });
    const row = await this.settlement.settle({ ...refund, state: 'unknown' });
    if (row.state === 'failed') throw new RefundFailedError(row);
    return { refund: row, record: await this.records.get(record.id) };
  }

  private async fail(refund: InvoiceRefund, reason: string): Promise<void> {
    await this.refunds.move(refund.id, ['pending'], { state: 'failed', reason: clip(reason, 2000) });
  }

  /**
   * Without a caller's key, a refund of the same amount of the invoice asked for within the repeat window (and not
   * failed) may be this one's first try: refused, naming it. `own`, the row this call claimed, is then closed as
   * failed, never sent.
   */
  private async refuseRepeat(invoiceRecordId: string, amountCents: number, own?: InvoiceRefund): Promise<void> {
    const window = this.options.repeatWindowMs;
    const since = new Date(Date.now() - window);
    const earlier = await this.refunds.latestSimilar(invoiceRecordId, amountCents, since, own?.id);
    if (!earlier) return;
    if (own) await this.fail(own, `not sent: repeats refund ${earlier.id} (same amount, no idempotency key)`);
    throw new RefundRepeatedError(invoiceRecordId, earlier, new Date(earlier.createdAt.getTime() + window));
  }

  private allow(record: InvoiceRecord, allowed: boolean): void {
    if (record.creationState !== 'created') {
      throw new InvoiceOperationNotAllowedError(
        'refund',
        record.id,
        `its creation is ${record.creationState}`,
        'not_created',
        record.statusCode,
      );
    }
    if (!allowed) {
      const status = `${record.method} invoice in status ${record.statusCode ?? 'none'}`;
      throw new InvoiceOperationNotAllowedError(
        'refund',
        record.id,
        `only paid invoices (5, 8); it is a ${status}`,
        'wrong_status',
        record.statusCode,
      );
    }
  }
}
