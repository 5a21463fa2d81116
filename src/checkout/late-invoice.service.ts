import { Injectable, Logger } from '@nestjs/common';
import { messageOf } from '../core/events';
import type { Adoption, LateInvoiceAdopter } from '../core/ports';
import { statusIs, statusRow, type StatusReportSource } from '../domain/status-table';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { captured, reportChangesNothing } from '../core/status-report';
import { InvoiceRecordStore, invoiceOrderFollows, isUniqueViolation } from '../core/invoice-record.store';
import { CreationOutcomes } from './creation-outcomes.service';
import { InvoiceCreationService } from './invoice-creation.service';
import { OnePayableInvoice } from './one-payable-invoice.service';
import { CreationMoveRefusedError } from '../core/invoice.errors';

/** Late and duplicate invoices: linked to their attempt, the order kept to one payable invoice (docs/checkout.md). */
@Injectable()
export class LateInvoiceService implements LateInvoiceAdopter {
  private readonly logger = new Logger(LateInvoiceService.name);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly creation: InvoiceCreationService,
    private readonly outcomes: CreationOutcomes,
    private readonly onePayable: OnePayableInvoice,
    private readonly status: InvoiceStatusService,
  ) {}

  /** Links an invoice to its attempt's record, applies its status and enforces one payable invoice. */
  async adopt(invoice: Invoice, source: StatusReportSource = 'webhook'): Promise<Adoption> {
    const none: Adoption = { record: null, foreign: null };
    if (!invoice.referrer || !invoice.id) return none;
    const record = await this.store.rows.findOneBy({ referrer: invoice.referrer });
    if (!record) return none;
    if (record.gatewayId === invoice.id) return this.linkedMeanwhile(record, invoice, source);
    const namespace = await this.creation.referrerNamespace();
    if (!namespace || !invoice.referrer.startsWith(`${namespace}:`)) {
      // A referrer made before namespaces: another store may use the same one (docs/refunds.md).
      this.logger.warn(`invoice ${invoice.id} (referrer ${invoice.referrer}) left alone: no namespace`);
      return none;
    }
    const foreign = await this.store.identity.whyNotOurs(invoice, record, 'referrer');
    if (foreign) return { record: null, foreign };
    if (record.gatewayId !== null) {
      return { ...none, ignored: await this.secondUnderReferrer(record, invoice) };
    }
    const duplicateOf = await this.duplicateOfAtLink(record, invoice);
    if (!(await this.link(record, invoice, source, duplicateOf))) {
      const now = await this.store.get(record.id);
      return now.gatewayId === invoice.id ? this.linkedMeanwhile(now, invoice, source) : none;
    }
    // Linked paid beside the order's paid invoice: the link set the mark, so it raises the alert (once: one link).
    if (duplicateOf !== null && isCaptured(invoice)) {
      this.onePayable.alertPaid(await this.store.get(record.id), await this.store.get(duplicateOf));
    }
    await this.onePayable.enforce(record.orderId);
    return { record: await this.store.get(record.id), foreign: null, applied: true as const };
  }

  /** `false` if the record was linked meanwhile. */
  private async link(
    record: InvoiceRecord,
    invoice: Invoice,
    source: StatusReportSource,
    duplicateOf: string | null,
  ): Promise<boolean> {
    const closed = record.creationState === 'failed';
    // Marked in the link's own write, so its first change reaches the host as a duplicate's; a mark the record
    // carries that the decision made now does not is cleared.
    const mark = duplicateOf !== record.duplicateOf ? { duplicateOf } : {};
    const note = `late invoice ${invoice.id}; before: ${record.failureReason ?? ''}`;
    try {
      await this.outcomes.link(record, invoice, source, {
        ...mark,
        ...(closed ? { failureReason: note } : {}),
      });
    } catch (err) {
      if (err instanceof CreationMoveRefusedError) return false;
      if (!isUniqueViolation(err)) throw err;
      this.logger.error(
        `invoice ${invoice.id} (referrer ${invoice.referrer}): its number is held by another record`,
      );
      return false;
    }
    const what = closed ? 'late invoice of a closed attempt' : 'invoice of an attempt in flight';
    this.logger.warn(`order ${record.orderId}: ${what} ${invoice.id} linked to record ${record.id}`);
    return true;
  }

  /** A record linked to the invoice meanwhile: the report applied to it unless it changes nothing, as by number. */
  private async linkedMeanwhile(record: InvoiceRecord, invoice: Invoice, source: StatusReportSource) {
    if (!reportChangesNothing(record, invoice.status.code, invoice)) {
      await this.status.apply({ recordId: record.id, code: invoice.status.code, source, invoice });
    }
    return { record, foreign: null, applied: true as const };
  }

  /**
   * The record the invoice duplicates, decided at its link. Paid: the paid invoice the order follows, if it has
   * one (the host heard that payment as the order's: this one is the money to return). Unpaid: the order's paid
   * invoice, else another attempt holding the order.
   */
  private async duplicateOfAtLink(record: InvoiceRecord, invoice: Invoice): Promise<string | null> {
    if (isCaptured(invoice)) {
      const follows = invoiceOrderFollows(
        await this.store.rows.findBy({ orderId: record.orderId }),
        record.orderId,
      );
      return follows && follows.id !== record.id && captured(follows) ? follows.id : null;
    }
    if (!statusIs(invoice.status.code, 'open')) return null;
    const paid = (await this.store.linkedOf(record.orderId)).find(captured);
    if (paid) return paid.id;
    const holder = await this.store.findOpen(record.orderId);
    return holder && holder.id !== record.id ? holder.id : null;
  }

  /**
   * A second invoice under a referrer whose attempt already holds one: how it was handled, or `undefined` while its
   * cancel could not be made (asked again on the delivery's retry).
   */
  private async secondUnderReferrer(record: InvoiceRecord, invoice: Invoice): Promise<string | undefined> {
    const where = `order ${record.orderId}: invoice ${invoice.id} has the referrer of invoice ${record.gatewayId}`;
    if (isCaptured(invoice)) {
      const message = `${where} and was paid: refund it (the order follows ${record.gatewayId})`;
      this.onePayable.alertPaidTwice(record.orderId, null, record.id, message);
      return `${where}: paid, alerted`;
    }
    if (!statusIs(invoice.status.code, 'cancellable')) return `${where}: not payable, left as it is`;
    try {
      await this.gateway.cancelInvoice({ id: invoice.id });
      this.logger.warn(`${where}: canceled at the service`);
      return `${where}: canceled at the service`;
    } catch (err) {
      this.logger.error(`${where}: canceling it failed: ${messageOf(err)}`);
      return undefined;
    }
  }
}

/** Whether the service reports the invoice paid (or what follows a payment: refunds, a dispute). */
function isCaptured(invoice: Invoice): boolean {
  return statusRow(invoice.status.code)?.session === 'captured';
}
