import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DuplicateInvoiceCanceled, InvoicePaymentsEvents } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import type { Adoption, LateInvoiceAdopter } from '../core/ports';
import { statusRow, type StatusReportSource } from '../core/status-table';
import { GatewayStateConflictError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { CANCELLABLE_CODES } from '../gateway/status';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { CheckoutConfig } from './checkout-config.service';
import { emitSafely, errorMessage, raiseAlert } from './errors';
import { InvoiceRecordStore, isUniqueViolation } from './invoice-record.store';
import { hasNamespace } from './order-mapping';
import { creationMove } from './creation-states';

/** Rounds of {@link LateInvoiceService.enforce} while another caller keeps changing the order's open slot. */
const ENFORCE_ROUNDS = 3;

/** Paid, in whole or in part, refunded or disputed: money arrived for it. */
function isPaid(record: InvoiceRecord): boolean {
  return statusRow(record.statusCode)?.session === 'captured';
}

function isPayable(record: InvoiceRecord): boolean {
  return CANCELLABLE_CODES.includes(record.statusCode ?? -1);
}

/** Late and duplicate invoices: linked to their attempt, the order kept to one payable invoice (docs/checkout.md). */
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

  /** Links an invoice to its attempt's record, applies its status and enforces one payable invoice. */
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
    const foreign = await this.store.identity.whyNotOurs(invoice, record, 'referrer');
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

  /** At most one payable invoice for the order, and the order following its paid invoice (after any link). */
  async enforce(orderId: string): Promise<void> {
    for (let round = 0; round < ENFORCE_ROUNDS; round++) {
      if (await this.enforceOnce(orderId)) return;
    }
    this.logger.warn(`order ${orderId}: its open invoice kept changing; the next report enforces it again`);
  }

  /** `false` when the open slot moved under it and the pass must be made again. */
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
    // The keeper holds the order's open slot, so no new invoice is created beside it.
    if (keeper.openOrderId === null && keeper.gatewayId !== null && (isPaid(keeper) || isPayable(keeper))) {
      const current = await this.store.get(keeper.id);
      if (current.openOrderId === null && !statusRow(current.statusCode)?.releasesOrder) {
        const took = await this.store.setIfNull(keeper.id, 'openOrderId', orderId);
        if (!took && !isPaid(keeper)) return false; // a new attempt claimed the order meanwhile: decide again
      }
    }
    return true;
  }

  /** `false` if the record was linked meanwhile. */
  private async link(record: InvoiceRecord, invoice: Invoice, source: StatusReportSource): Promise<boolean> {
    const closed = record.creationState === 'failed';
    // Marked before its status is applied, so even its first change reaches the host as a duplicate's.
    const duplicateOf = await this.unpaidDuplicateOf(record, invoice);
    let moved: boolean;
    try {
      moved = await this.store.transition(
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
      this.logger.error(
        `invoice ${invoice.id} (referrer ${invoice.referrer}): its number is held by another record`,
      );
      return false;
    }
    if (!moved) return false;
    const what = closed ? 'late invoice of a closed attempt' : 'invoice of an attempt in flight';
    this.logger.warn(`order ${record.orderId}: ${what} ${invoice.id} linked to record ${record.id}`);
    await this.apply(record, invoice, source);
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
        `order ${duplicate.orderId}: canceling duplicate ${duplicate.gatewayId} failed: ${errorMessage(err)}`,
      );
      return;
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
  }

  /** The cancel was refused: the invoice moved (paid?) meanwhile. */
  private async refresh(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<void> {
    const invoice = await this.gateway.findInvoiceById(duplicate.gatewayId ?? '').catch(() => null);
    if (!invoice) return;
    await this.apply(duplicate, invoice);
    const now = await this.store.get(duplicate.id);
    if (isPaid(now)) this.alertPaid(now, keeper);
  }

  private async duplicatePaid(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<void> {
    // Whoever sets the mark raises the alert, so once per duplicate.
    if (await this.store.setIfNull(duplicate.id, 'duplicateOf', keeper.id)) this.alertPaid(duplicate, keeper);
  }

  private alertPaid(duplicate: InvoiceRecord, keeper: InvoiceRecord): void {
    const message =
      `order ${duplicate.orderId}: invoices ${keeper.gatewayId} (record ${keeper.id}) and ${duplicate.gatewayId} ` +
      `(record ${duplicate.id}) were both paid; the order follows ${keeper.gatewayId}: refund ${duplicate.gatewayId}`;
    this.paidTwice(duplicate.orderId, duplicate.id, keeper.id, message);
  }

  private paidTwice(orderId: string, recordId: string | null, keeperId: string, message: string): void {
    const alert = { orderId, invoiceRecordId: recordId, relatedInvoiceRecordId: keeperId, message };
    raiseAlert(this.events, this.logger, { kind: 'duplicate_paid', ...alert });
  }

  /** A second invoice under a referrer whose attempt already holds one. */
  private async secondUnderReferrer(record: InvoiceRecord, invoice: Invoice): Promise<void> {
    const where = `order ${record.orderId}: invoice ${invoice.id} has the referrer of invoice ${record.gatewayId}`;
    if (statusRow(invoice.status.code)?.session === 'captured') {
      const message = `${where} and was paid: refund it (the order follows ${record.gatewayId})`;
      return this.paidTwice(record.orderId, null, record.id, message);
    }
    if (!CANCELLABLE_CODES.includes(invoice.status.code)) return;
    try {
      await this.gateway.cancelInvoice({ id: invoice.id });
      this.logger.warn(`${where}: canceled at the service`);
    } catch (err) {
      this.logger.error(`${where}: canceling it failed: ${errorMessage(err)}`);
    }
  }

  private async apply(record: InvoiceRecord, invoice: Invoice, source: StatusReportSource = 'operation') {
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source, invoice });
  }
}
