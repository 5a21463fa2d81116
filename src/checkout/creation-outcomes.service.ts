import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { emitSafely, InvoicePaymentsEvents, KEEP_ONE_PAYABLE, messageOf, raiseAlert } from '../core/events';
import type { DuplicateInvoiceCanceled, InvoicePaymentsAlert } from '../core/events';
import { creationMove, CreationMoveRefusedError } from '../core/creation-move';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { clip } from '../domain/text-bounds';
import { statusIs, statusRow, type StatusReportSource } from '../domain/status-table';
import { NO_HISTORY, type AppliedStatus } from '../core/status-report';
import { GatewayStateConflictError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import {
  InvoiceCreationNeedsAttentionError,
  InvoiceNumberClashError,
  PaymentBeingConfirmedError,
  isUpstreamFailure,
} from '../core/invoice.errors';
import { InvoiceRecordStore, isUniqueViolation } from '../core/invoice-record.store';

/** Rounds of {@link CreationOutcomes.enforce} while another caller keeps changing the order's open slot. */
const ENFORCE_ROUNDS = 3;

/** Paid, in whole or in part, refunded or disputed: money arrived for it. */
export function isPaid(record: InvoiceRecord): boolean {
  return statusRow(record.statusCode)?.session === 'captured';
}

function isPayable(record: InvoiceRecord): boolean {
  return statusIs(record.statusCode, 'open');
}

/** How an attempt ends once its request was sent (or its holder died): created, closed, or still unknown. */
@Injectable()
export class CreationOutcomes implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CreationOutcomes.name);
  /** What {@link KEEP_ONE_PAYABLE} asked for, one order after another; awaited on shutdown. */
  private enforcing = Promise.resolve();
  private readonly onKeepOnePayable = (orderId: string) =>
    (this.enforcing = this.enforcing
      .then(() => this.enforce(orderId))
      .catch((err: unknown) => this.logger.error(`order ${orderId}: enforcing failed: ${messageOf(err)}`)));

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    private readonly gateway: GatewayClient,
  ) {}

  onModuleInit(): void {
    this.events.on(KEEP_ONE_PAYABLE, this.onKeepOnePayable);
  }

  async onModuleDestroy(): Promise<void> {
    this.events.off(KEEP_ONE_PAYABLE, this.onKeepOnePayable);
    await this.enforcing;
  }

  /** Asks until found (created), `settlesAt` passed (closed: `null`) or `deadline` over (`unknown`, throws). */
  async resolveUnknown(
    record: InvoiceRecord,
    deadline: number,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    for (;;) {
      let found: Invoice | null;
      try {
        found = await this.store.identity.findOurs(record);
      } catch (err) {
        return this.lookupFailed(record, err, options);
      }
      if (found) return this.settleCreated(record, found);
      const now = Date.now();
      const settles = record.settlesAt?.getTime() ?? 0;
      if (now >= settles) {
        const why = 'not found at the service by its referrer after the request could have landed';
        this.logger.warn(`order ${record.orderId}: attempt ${record.referrer} ${why}; closed as not created`);
        if (await this.store.closeNotCreated(record.id, why)) return null;
        const current = await this.store.get(record.id); // a late invoice was linked to it meanwhile
        return current.creationState === 'created' ? current : null;
      }
      const next = Math.min(settles, now + options.unknownOutcomeRecheckMs);
      if (next > deadline) {
        await this.store.transition(record.id, creationMove(['pending'], 'unknown', {}));
        const wait = Math.max(1, Math.ceil((settles - now) / 1000));
        throw new PaymentBeingConfirmedError(record.orderId, record.id, wait, 'not found at the service yet');
      }
      await sleep(next - now);
    }
  }

  /** A lookup failed: back to `unknown`; past `unresolvedAlertMs` the attempt needs a person (alert, once). */
  async lookupFailed(record: InvoiceRecord, err: unknown, options: ResolvedCheckoutOptions): Promise<never> {
    const why = messageOf(err);
    const since = record.unknownSince ?? new Date();
    const stuck = Date.now() - since.getTime() >= options.unresolvedAlertMs;
    const reason = `could not ask the service whether invoice ${record.referrer} exists since ${since.toISOString()}: ${why}`;
    await this.store.transition(
      record.id,
      creationMove(['pending'], 'unknown', {
        unknownSince: since,
        ...(stuck ? { attentionReason: clip(reason, 2000) } : {}),
      }),
    );
    if (!stuck) {
      const seconds = Math.max(1, Math.ceil(options.unknownOutcomeRecheckMs / 1000));
      // The details (address, system error) go to the log only.
      this.logger.warn(`order ${record.orderId}: could not ask the service about ${record.referrer}: ${why}`);
      const down = isUpstreamFailure(err);
      const detail = `could not ask the service: ${down ? 'it is unavailable' : why}`;
      throw new PaymentBeingConfirmedError(record.orderId, record.id, seconds, detail, down);
    }
    if (record.attentionReason === null) this.alert('creation_unresolved', record, reason);
    throw new InvoiceCreationNeedsAttentionError(record.orderId, record.id, reason);
  }

  /** Stores the answer (numbers, `created`, first status) in one write, then handles late invoices. */
  async settleCreated(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const gross = invoice.amounts.grossCents;
    const mismatch = gross !== null && gross !== record.amountCents;
    // Only ever raised here: a payment's mismatch, flagged by the status path meanwhile, must stay.
    const fields = { ...(mismatch ? { amountMismatch: true } : {}), failureReason: null };
    let applied: AppliedStatus;
    try {
      applied = await this.link(record, invoice, 'create', fields);
    } catch (err) {
      if (!isUniqueViolation(err) && !(err instanceof CreationMoveRefusedError)) throw err;
      return this.numberClash(record, invoice);
    }
    if (mismatch) {
      const message =
        `invoice ${record.id} of order ${record.orderId}: the service's gross ${centsToDecimalString(gross)} ` +
        `differs from the order total ${centsToDecimalString(record.amountCents)}`;
      this.alert('amount_mismatch', record, message);
    }
    // A later attempt, or one whose slot was closed while its answer was on the way (marked not created, then a
    // retry): one payable invoice per order.
    if (record.attempt === 1 && applied.record.openOrderId !== null) return applied.record;
    await this.enforce(record.orderId);
    return this.store.get(record.id);
  }

  /**
   * Links `invoice` to its attempt's record: numbers, `created` and `fields` written with its status, in one write,
   * so nobody sees `created` without the PIX/bank-slip data; onto a record holding no other invoice only (else a
   * unique violation or `CreationMoveRefusedError`, nothing written). A closed attempt is linked too: its invoice
   * exists, `enforce` decides.
   */
  async link(
    record: InvoiceRecord,
    invoice: Invoice,
    source: StatusReportSource,
    fields: Partial<InvoiceRecord>,
  ): Promise<AppliedStatus> {
    const created = creationMove(['pending', 'unknown', 'failed'], 'created', {
      gatewayId: invoice.id,
      gatewayUuid: invoice.uuid,
      gatewayInvoiceId: invoice.invoiceId || null,
      attentionReason: null,
      ...fields,
      updatedAt: new Date(),
    });
    const report = { recordId: record.id, code: invoice.status.code, source, invoice };
    // As its claim wrote it, the record has no history: one guarded statement may write it.
    const known = record.statusCode === null && record.creationState === 'pending' ? NO_HISTORY : undefined;
    const applied = await this.status.apply(report, { record, known, creation: created });
    // A closed attempt the reconciliation took off its schedule is checked again, from now.
    if (record.creationState === 'failed') await this.store.backOnSchedule(record.id);
    return applied;
  }

  /** The record did not take the answer's number: linked meanwhile to it (adopted: settled), else a clash. */
  private async numberClash(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const now = await this.store.get(record.id);
    if (now.gatewayId === invoice.id) return now;
    const holder = await this.store.rows.findOneBy({ gatewayId: invoice.id });
    const held = now.gatewayId;
    const error = new InvoiceNumberClashError(record.orderId, record.id, invoice.id, holder?.id ?? '?', held);
    if (held === null) await this.store.closeNotCreated(record.id, error.message, ['pending', 'unknown']);
    this.alert('invoice_number_clash', record, error.message, holder?.id);
    throw error;
  }

  alert(kind: InvoicePaymentsAlert['kind'], record: InvoiceRecord, message: string, related?: string): void {
    const relation = related ? { relatedInvoiceRecordId: related } : {};
    const alert = { kind, orderId: record.orderId, invoiceRecordId: record.id, message, ...relation };
    raiseAlert(this.events, this.logger, alert, 'warn');
  }

  /** At most one payable invoice for the order, and the order following its paid invoice (after any link). */
  async enforce(orderId: string): Promise<void> {
    for (let round = 0; round < ENFORCE_ROUNDS; round++) {
      if (await this.enforceOnce(orderId)) return;
    }
    this.logger.warn(`order ${orderId}: its open invoice kept changing; enforced again at the next check`);
  }

  /** `false` when the open slot moved under it and the pass must be made again. */
  private async enforceOnce(orderId: string): Promise<boolean> {
    const linked = await this.store.linkedOf(orderId);
    const paid = linked.filter(isPaid);
    const holder = await this.store.findOpen(orderId);
    const unmarked = linked.find((r) => isPayable(r) && r.duplicateOf === null);
    // Else a payable invoice marked as the duplicate of one no longer kept (closed, canceled) is the order's.
    const orphan = paid.length === 0 && !holder && !unmarked ? linked.find(isPayable) : undefined;
    if (orphan && !(await this.store.unmark(orphan))) return false;
    const keeper = paid[0] ?? holder ?? unmarked ?? orphan ?? null;
    if (!keeper) return true;
    for (const other of paid.slice(1)) {
      // Whoever sets the mark raises the alert, so once per duplicate.
      if (await this.store.setIfNull(other.id, 'duplicateOf', keeper.id)) this.alertPaid(other, keeper);
    }
    for (const other of linked) {
      if (other.id === keeper.id || !isPayable(other)) continue;
      if (!(await this.cancelDuplicate(other, keeper))) return false; // paid meanwhile: the order follows it
    }
    // The keeper holds the order's open slot, so no new invoice is created beside it.
    if (keeper.openOrderId === null && keeper.gatewayId !== null && (isPaid(keeper) || isPayable(keeper))) {
      const current = await this.store.get(keeper.id);
      if (current.openOrderId === null && !statusIs(current.statusCode, 'releasesOrder')) {
        const took = await this.store.setIfNull(keeper.id, 'openOrderId', orderId);
        if (!took && !isPaid(keeper)) return false; // a new attempt claimed the order meanwhile: decide again
      }
    }
    return true;
  }

  /** `false` when the duplicate turned out paid and the keeper is not: the pass must be made again. */
  private async cancelDuplicate(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<boolean> {
    // Marked before the cancel, so the host hears its cancellation as a duplicate's, never as the order's.
    await this.store.setIfNull(duplicate.id, 'duplicateOf', keeper.id);
    let invoice: Invoice;
    try {
      invoice = await this.gateway.cancelInvoice({ id: duplicate.gatewayId ?? '' });
    } catch (err) {
      if (err instanceof GatewayStateConflictError) return this.refresh(duplicate, keeper);
      // Left payable and marked, on the reconciliation's schedule: its next check asks for this again.
      await this.store.backOnSchedule(duplicate.id);
      this.logger.error(
        `order ${duplicate.orderId}: canceling duplicate ${duplicate.gatewayId} failed: ${messageOf(err)}`,
      );
      return true;
    }
    await this.apply(duplicate, invoice);
    this.logger.warn(
      `order ${duplicate.orderId}: duplicate invoice ${duplicate.gatewayId} (record ${duplicate.id}) canceled; ` +
        `the order keeps invoice ${keeper.gatewayId ?? '(being created)'} (record ${keeper.id})`,
    );
    const event: DuplicateInvoiceCanceled = {
      orderId: duplicate.orderId,
      invoiceRecordId: duplicate.id,
      gatewayId: duplicate.gatewayId,
      keptInvoiceRecordId: keeper.id,
      keptGatewayId: keeper.gatewayId,
    };
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.DuplicateCanceled, event);
    return true;
  }

  /**
   * The cancel was refused: the invoice moved (paid?) meanwhile. Paid while the keeper is not, the status path
   * unmarked it (it wins, the order follows it): `false`, so the keeper is chosen again.
   */
  private async refresh(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<boolean> {
    const invoice = await this.gateway.findInvoiceById(duplicate.gatewayId ?? '').catch(() => null);
    if (!invoice) return true;
    await this.apply(duplicate, invoice);
    const now = await this.store.get(duplicate.id);
    if (!isPaid(now)) return true;
    if (now.duplicateOf === null) return false;
    this.alertPaid(now, keeper);
    return true;
  }

  private alertPaid(duplicate: InvoiceRecord, keeper: InvoiceRecord): void {
    const message =
      `order ${duplicate.orderId}: invoices ${keeper.gatewayId} (record ${keeper.id}) and ${duplicate.gatewayId} ` +
      `(record ${duplicate.id}) were both paid; the order follows ${keeper.gatewayId}: refund ${duplicate.gatewayId}`;
    this.paidTwice(duplicate.orderId, duplicate.id, keeper.id, message);
  }

  paidTwice(orderId: string, recordId: string | null, keeperId: string, message: string): void {
    const alert = { orderId, invoiceRecordId: recordId, relatedInvoiceRecordId: keeperId, message };
    raiseAlert(this.events, this.logger, { kind: 'duplicate_paid', ...alert });
  }

  async apply(record: InvoiceRecord, invoice: Invoice, source: StatusReportSource = 'operation') {
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source, invoice });
  }
}
