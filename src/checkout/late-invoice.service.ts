import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DuplicateInvoiceCanceled, InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { InvoiceIdentity } from '../core/invoice-identity';
import type { Adoption, LateInvoiceAdopter } from '../core/ports';
import { statusRow, type StatusReportSource } from '../core/status-table';
import { GatewayStateConflictError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { CANCELLABLE_CODES } from '../gateway/status';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { CheckoutConfig } from './checkout-config.service';
import { InvoiceRecordStore, isUniqueViolation } from './invoice-record.store';
import { hasNamespace } from './order-mapping';
import { creationMove } from './creation-states';

/** Rounds of {@link LateInvoiceService.enforce} when another caller keeps changing the order's open slot. */
const ENFORCE_ROUNDS = 3;

/** Paid, in whole or in part, refunded or disputed: money arrived for it. */
function isPaid(record: InvoiceRecord): boolean {
  return statusRow(record.statusCode)?.session === 'captured';
}

function isPayable(record: InvoiceRecord): boolean {
  return CANCELLABLE_CODES.includes(record.statusCode ?? -1);
}

/**
 * Late and duplicate invoices, wherever they show up (the checkout's lookup, a webhook, the reconciliation sweep).
 * Only this store's: an invoice is matched by referrer only when the referrer carries this installation's namespace
 * and its identity is what the attempt sent ({@link InvoiceIdentity}: referrer, payment id, amount); any other is
 * left alone, never canceled, and alerted.
 *
 * An invoice no record holds by its number is matched to its order by the referrer it was created under
 * (`<order reference>-<attempt>`): the record of that attempt is linked to it, whatever the attempt's state (a
 * creation still in flight, or an attempt already closed as "not created"), and its status is applied. Then the
 * order is brought back to one payable invoice ({@link enforce}): a paid invoice wins, and the order follows it;
 * else the attempt holding the order's open slot. An unpaid duplicate is canceled at the service at once (logged,
 * `invoice-payments.duplicate_canceled`); a second paid invoice raises a `duplicate_paid` alert naming both, for
 * the store to refund one. Duplicates carry `duplicateOf`, and so do their status changes, so a host knows they do
 * not move the order. No database transaction is open while the service is called.
 */
@Injectable()
export class LateInvoiceService implements LateInvoiceAdopter {
  private readonly logger = new Logger(LateInvoiceService.name);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    private readonly config: CheckoutConfig,
  ) {}

  /** The store's identity check (the record store's: one instance, one memory of verdicts). */
  private get identity(): InvoiceIdentity {
    return this.store.identity;
  }

  /**
   * Links an invoice to the record of the attempt it was created for (found by its referrer, its identity checked:
   * {@link InvoiceIdentity}), applies its status (`source`) and enforces one payable invoice for the order. Returns
   * that record; no record when no attempt of this store has that referrer, or when the attempt already holds
   * another invoice (a second invoice of the same request: canceled or alerted here, it has no record of its own);
   * `foreign` when an attempt has the referrer but the invoice is not the one it sent (left alone, alerted).
   */
  async adopt(invoice: Invoice, source: StatusReportSource = 'webhook'): Promise<Adoption> {
    const none: Adoption = { record: null, foreign: null };
    if (!invoice.referrer || !invoice.id) return none;
    const record = await this.store.findByReferrer(invoice.referrer);
    if (!record) return none;
    if (record.gatewayId === invoice.id) return { record, foreign: null };
    if (!hasNamespace(invoice.referrer, await this.config.referrerNamespace())) {
      // A referrer made before namespaces: another store may use the same one (docs/refunds.md).
      this.logger.warn(`invoice ${invoice.id} (referrer ${invoice.referrer}) left alone: no namespace`);
      return none;
    }
    const foreign = await this.identity.whyNotOurs(invoice, record, 'referrer');
    if (foreign) return { record: null, foreign };
    if (record.gatewayId !== null) {
      await this.secondUnderReferrer(record, invoice);
      return none;
    }
    if (!(await this.link(record, invoice, source))) {
      const now = await this.store.get(record.id);
      return { record: now.gatewayId === invoice.id ? now : null, foreign: null };
    }
    await this.enforce(record.orderId);
    return { record: await this.store.get(record.id), foreign: null };
  }

  /**
   * At most one payable invoice for the order, and the order following its paid invoice. Called after any invoice
   * of the order was linked (the checkout after creating, {@link adopt} after a late one).
   */
  async enforce(orderId: string): Promise<void> {
    for (let round = 0; round < ENFORCE_ROUNDS; round++) {
      if (await this.enforceOnce(orderId)) return;
    }
    this.logger.warn(`order ${orderId}: its open invoice kept changing; the next report enforces it again`);
  }

  /** One pass; `false` when the open slot moved under it and the pass must be made again. */
  private async enforceOnce(orderId: string): Promise<boolean> {
    const linked = await this.store.linkedOf(orderId);
    const paid = linked.filter(isPaid);
    const holder = await this.store.findOpen(orderId);
    const keeper = paid[0] ?? holder ?? linked.find((r) => isPayable(r) && r.duplicateOf === null) ?? null;
    if (!keeper) return true;
    for (const other of paid.slice(1)) await this.duplicatePaid(other, keeper);
    for (const other of linked) {
      if (other.id !== keeper.id && isPayable(other)) await this.cancelDuplicate(other, keeper);
    }
    // The invoice the order follows holds the order's open slot, so no new invoice is created beside it. A paid
    // keeper takes it once the duplicate it replaced released it (a canceled invoice releases the order).
    if (keeper.openOrderId === null && keeper.gatewayId !== null && (isPaid(keeper) || isPayable(keeper))) {
      const current = await this.store.get(keeper.id);
      if (current.openOrderId === null && !statusRow(current.statusCode)?.releasesOrder) {
        const took = await this.store.setIfNull(keeper.id, 'openOrderId', orderId);
        if (!took && !isPaid(keeper)) return false; // a new attempt claimed the order meanwhile: decide again
      }
    }
    return true;
  }

  /** Links the record (no invoice yet, any creation state) to the invoice; `false` if it was linked meanwhile. */
  private async link(record: InvoiceRecord, invoice: Invoice, source: StatusReportSource): Promise<boolean> {
    const closed = record.creationState === 'failed';
    // Marked before its status is applied, so even its first change reaches the host as a duplicate's.
    const duplicateOf = await this.unpaidDuplicateOf(record, invoice);
    let moved: boolean;
    try {
      moved = await this.store.transitionUnlinked(
        record.id,
        creationMove(['pending', 'unknown', 'failed'], 'created', {
          gatewayId: invoice.id,
          gatewayUuid: invoice.uuid,
          gatewayInvoiceId: invoice.invoiceId || null,
          attentionReason: null,
          ...(duplicateOf ? { duplicateOf } : {}),
          ...(closed
            ? { failureReason: `late invoice ${invoice.id}; before: ${record.failureReason ?? ''}` }
            : {}),
        }),
      );
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Another record holds this number: the service reused it. Nothing can be linked safely.
      this.logger.error(
        `invoice ${invoice.id} (referrer ${invoice.referrer}): its number is held by another record`,
      );
      return false;
    }
    if (!moved) return false;
    const what = closed ? 'late invoice of a closed attempt' : 'invoice of an attempt in flight';
    this.logger.warn(`order ${record.orderId}: ${what} ${invoice.id} linked to record ${record.id}`);
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source, invoice });
    return true;
  }

  /** The record this unpaid invoice duplicates: the order's paid invoice, else another attempt holding the order. */
  private async unpaidDuplicateOf(record: InvoiceRecord, invoice: Invoice): Promise<string | null> {
    if (!CANCELLABLE_CODES.includes(invoice.status.code)) return null;
    const paid = (await this.store.linkedOf(record.orderId)).find(isPaid);
    if (paid) return paid.id;
    const holder = await this.store.findOpen(record.orderId);
    return holder && holder.id !== record.id ? holder.id : null;
  }

  private async cancelDuplicate(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<void> {
    await this.store.setIfNull(duplicate.id, 'duplicateOf', keeper.id);
    let invoice: Invoice;
    try {
      invoice = await this.gateway.cancelInvoice({ id: duplicate.gatewayId ?? '' });
    } catch (err) {
      if (err instanceof GatewayStateConflictError) return this.refresh(duplicate, keeper);
      // Left payable and marked: the next report of the order (webhook, sweep, checkout) tries again.
      this.logger.error(
        `order ${duplicate.orderId}: canceling duplicate ${duplicate.gatewayId} failed: ${why(err)}`,
      );
      return;
    }
    await this.status.apply({
      recordId: duplicate.id,
      code: invoice.status.code,
      source: 'operation',
      invoice,
    });
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
    this.emit(InvoicePaymentsEvents.DuplicateCanceled, event);
  }

  /** The cancel was refused: the invoice moved (paid?) meanwhile. Read it, apply it, alert if it was paid. */
  private async refresh(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<void> {
    const invoice = await this.gateway.findInvoiceById(duplicate.gatewayId ?? '').catch(() => null);
    if (!invoice) return;
    await this.status.apply({
      recordId: duplicate.id,
      code: invoice.status.code,
      source: 'operation',
      invoice,
    });
    const now = await this.store.get(duplicate.id);
    if (isPaid(now)) this.alertPaid(now, keeper);
  }

  private async duplicatePaid(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<void> {
    // Once per duplicate: whoever sets the mark raises the alert (a marked one that got paid anyway was alerted
    // when its cancel was refused, or by the status table's `paid_after_cancel`).
    if (await this.store.setIfNull(duplicate.id, 'duplicateOf', keeper.id)) this.alertPaid(duplicate, keeper);
  }

  private alertPaid(duplicate: InvoiceRecord, keeper: InvoiceRecord): void {
    const message =
      `order ${duplicate.orderId}: invoices ${keeper.gatewayId} (record ${keeper.id}) and ${duplicate.gatewayId} ` +
      `(record ${duplicate.id}) were both paid; the order follows ${keeper.gatewayId}: refund ${duplicate.gatewayId}`;
    this.logger.error(message);
    const alert: InvoicePaymentsAlert = {
      kind: 'duplicate_paid',
      orderId: duplicate.orderId,
      invoiceRecordId: duplicate.id,
      relatedInvoiceRecordId: keeper.id,
      message,
    };
    this.emit(InvoicePaymentsEvents.Alert, alert);
  }

  /** A second invoice under a referrer whose attempt already holds one (a service that created it twice). */
  private async secondUnderReferrer(record: InvoiceRecord, invoice: Invoice): Promise<void> {
    const where = `order ${record.orderId}: invoice ${invoice.id} has the referrer of invoice ${record.gatewayId}`;
    if (statusRow(invoice.status.code)?.session === 'captured') {
      const message = `${where} and was paid: refund it (the order follows ${record.gatewayId})`;
      this.logger.error(message);
      const alert: InvoicePaymentsAlert = {
        kind: 'duplicate_paid',
        orderId: record.orderId,
        invoiceRecordId: null,
        relatedInvoiceRecordId: record.id,
        message,
      };
      this.emit(InvoicePaymentsEvents.Alert, alert);
      return;
    }
    if (!CANCELLABLE_CODES.includes(invoice.status.code)) return;
    try {
      await this.gateway.cancelInvoice({ id: invoice.id });
      this.logger.warn(`${where}: canceled at the service`);
    } catch (err) {
      this.logger.error(`${where}: canceling it failed: ${why(err)}`);
    }
  }

  private emit(event: string, payload: unknown): void {
    try {
      this.events.emit(event, payload);
    } catch (err) {
      this.logger.error(`a listener of ${event} threw: ${why(err)}`);
    }
  }
}

function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
