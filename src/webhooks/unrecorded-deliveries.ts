import type { DataSource } from 'typeorm';
import { type InvoiceIdentity, recordOfInvoice } from '../core/invoice-identity';
import type { InvoiceStatusService } from '../core/invoice-status.service';
import type { Adoption, LateInvoiceAdopter } from '../core/ports';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { type DeliveryConfirmation, NO_RECORD_YET } from './delivery-confirmation';
import { clip } from '../core/text-bounds';
import { type InboxRows, reportOf } from './inbox-rows';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

/**
 * The part of a batch whose invoices have no record here yet, an entry at a time (see {@link InboxBatch} for those
 * that have one): the budget for unknown invoices, the service's answer, then the record by the service's referrer
 * (an earlier attempt's late invoice is linked, and duplicates canceled or alerted, by the checkout's adopter).
 */
export class UnrecordedDeliveries {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: InboxRows,
    private readonly confirmation: DeliveryConfirmation,
    private readonly statuses: InvoiceStatusService,
    private readonly options: ResolvedWebhooksOptions,
    private readonly identity: InvoiceIdentity,
    private readonly lateInvoices: LateInvoiceAdopter | null,
  ) {}

  /**
   * One claimed entry (an error is retried, never thrown). The stored body only named the invoice (its number was
   * read at receipt): what is applied is what the service says now.
   */
  async process(entry: WebhookInboxEntry): Promise<void> {
    const named = entry.gatewayId;
    if (named === null) return this.rows.deadLetter(entry, null, 'the delivery names no invoice number');
    const admission = await this.confirmation.admit(entry, named);
    if (admission === 'handled') return;
    const local = admission === 'recorded';
    // Answered by a lookup applied after it arrived: the confirmation remembers the record it was applied to.
    const answeredBy = local ? this.confirmation.answeredRecord(named, entry.receivedAt) : null;
    if (answeredBy !== null) return this.rows.closeAnswered(entry, answeredBy);
    const confirmation = await this.confirmation.confirm(entry, named, local);
    if (!confirmation) return;
    const invoice = confirmation.invoice;
    try {
      const { record, foreign } = await this.findRecord(invoice);
      if (foreign) return this.rows.leftAlone(entry, foreign);
      if (!record) {
        const waited = Date.now() - entry.receivedAt.getTime();
        if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
          return this.rows.deadLetter(
            entry,
            null,
            `no invoice record for invoice ${invoice.id} after ${waited} ms`,
          );
        }
        // Later deliveries of this invoice wait for a record too, without asking the service again (the
        // confirmation remembered that when the service answered).
        return this.rows.retryLater(entry, `${NO_RECORD_YET} for invoice ${invoice.id}`);
      }
      // A record appeared since the admission (found by the service's referrer): nothing waits for one now.
      if (!local) this.rows.unknown.forget(named);
      await this.apply(entry, invoice, record, 'confirmed with the service');
      // Deliveries of this invoice that arrived before the lookup are answered by it: one lookup serves them all.
      return this.confirmation.applied(invoice.id, confirmation.startedAt, record.id, invoice);
    } catch (err) {
      return this.rows.failed(entry, err);
    }
  }

  private async apply(
    entry: WebhookInboxEntry,
    invoice: Invoice,
    record: InvoiceRecord,
    how: string,
  ): Promise<void> {
    const { result } = await this.statuses.apply(reportOf(record.id, invoice));
    await this.rows.finish(entry, {
      state: 'processed',
      outcome: clip(`${result.applied ? 'applied' : (result.reason ?? 'not applied')} (${how})`, 255),
      invoiceRecordId: record.id,
      lastError: null,
      processedAt: new Date(),
    });
  }

  /**
   * The record of the service's invoice ({@link recordOfInvoice}); an earlier attempt's late invoice is linked, and
   * duplicates canceled or alerted, by the checkout's adopter when there is one.
   */
  private findRecord(invoice: Invoice): Promise<Adoption> {
    const late = this.lateInvoices;
    const adopt = late ? (i: Invoice) => late.adopt(i, 'webhook') : undefined;
    return recordOfInvoice(this.dataSource.getRepository(InvoiceRecord), this.identity, invoice, adopt);
  }
}
