import { DataSource, In } from 'typeorm';
import { InvoiceIdentity, recordOfInvoice } from '../core/invoice-identity';
import { InvoiceStatusService, reportChangesNothing } from '../core/invoice-status.service';
import type { Adoption } from '../core/ports';
import type { KnownHistory } from '../core/status-report';
import { clip } from '../domain/text-bounds';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

/** The record a batch found by the invoice's number, with its known history. */
export type FoundRecord = { record: InvoiceRecord; known: KnownHistory | null };

/**
 * What applying a confirmed invoice came to: `applied` (or found unchanged, or linked) to a record; `ignored` (not
 * this store's, or handled by the checkout); `no-record` (no record takes it yet). The processor moves the entries.
 */
export type Applied =
  | { kind: 'applied'; outcome: string; recordId: string }
  | { kind: 'ignored'; outcome: string; lastError: string | null }
  | { kind: 'no-record' };

const CONFIRMED = '(confirmed with the service)';

/** The batch's reading and writing of records: which records the entries name, and a confirmed report applied. */
export class InboxRecords {
  constructor(
    private readonly dataSource: DataSource,
    private readonly identity: InvoiceIdentity,
    private readonly statuses: InvoiceStatusService,
    private readonly adopt?: (invoice: Invoice) => Promise<Adoption>,
  ) {}

  /** The records of these numbers, and which of the entries' referrers a record holds: one query. */
  async of(gatewayIds: string[], entries: WebhookInboxEntry[]) {
    const named = [...new Set(entries.flatMap((e) => (e.referrer === null ? [] : [e.referrer])))];
    const where = [
      ...(gatewayIds.length > 0 ? [{ gatewayId: In(gatewayIds) }] : []),
      ...(named.length > 0 ? [{ referrer: In(named) }] : []),
    ];
    const found = where.length > 0 ? await this.dataSource.getRepository(InvoiceRecord).findBy(where) : [];
    const byNumber = found.filter((r) => r.gatewayId !== null && gatewayIds.includes(r.gatewayId));
    return {
      records: new Map(byNumber.map((r) => [r.gatewayId as string, r])),
      referrers: new Set(found.map((r) => r.referrer)),
    };
  }

  /** What the records of a batch have in their histories already, read once for the batch. */
  knownHistories(recordIds: string[]) {
    return this.statuses.knownHistories(recordIds);
  }

  /** What the service said, applied to the invoice's record (`found` by number, else by referrer or adoption). */
  async apply(invoice: Invoice, found?: FoundRecord): Promise<Applied> {
    const matched = await this.match(invoice, found);
    const { foreign, settled, record } = matched;
    // Not this store's, or the store's but no record may take it (handled by the checkout): nothing to apply.
    if (foreign)
      return { kind: 'ignored', outcome: `left alone: not this store's invoice`, lastError: foreign };
    if (settled) return { kind: 'ignored', outcome: settled, lastError: null };
    if (!record) return { kind: 'no-record' };
    if (matched.applied)
      return { kind: 'applied', outcome: `linked to its attempt ${CONFIRMED}`, recordId: record.id };
    if (found && reportChangesNothing(found.record, invoice.status.code, invoice)) {
      const outcome = `unchanged: the service reports nothing new ${CONFIRMED}`;
      return { kind: 'applied', outcome, recordId: record.id };
    }
    const { code, text } = invoice.status;
    const { result } = await this.statuses.apply(
      { recordId: record.id, code, text, source: 'webhook', invoice },
      found ? { record: found.record, known: found.known ?? undefined } : undefined,
    );
    const outcome = result.applied ? 'applied' : (result.reason ?? 'not applied');
    return { kind: 'applied', outcome: clip(`${outcome} ${CONFIRMED}`, 255), recordId: record.id };
  }

  private async match(invoice: Invoice, found?: FoundRecord): Promise<Adoption> {
    if (!found) {
      const records = this.dataSource.getRepository(InvoiceRecord);
      return recordOfInvoice(records, this.identity, invoice, this.adopt);
    }
    return { record: found.record, foreign: await this.identity.whyNotOurs(invoice, found.record, 'number') };
  }
}
