import type { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import { Column, DataSource, Entity, In, Index, PrimaryColumn } from 'typeorm';
import { raiseAlert } from '../core/events';
import { InvoiceIdentity, recordOfInvoice } from '../core/invoice-identity';
import { InvoiceStatusService } from '../core/invoice-status.service';
import type { Adoption } from '../core/ports';
import { doublingDelayMs } from '../core/queue/backoff';
import { LeasedRows } from '../core/queue/leased-rows';
import { reportChangesNothing, type KnownHistory } from '../core/status-report';
import type { Clock } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import type { Invoice } from '../gateway/types';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { TimestampColumn } from '../persistence/columns';
import { InvoiceRecord } from '../persistence/invoice.entity';

// The inbox's table, and what the processor (it alone moves entries) writes of a batch: a confirmed report applied
// to its record ({@link InboxRecords}), or an attempt ended without applying ({@link InboxFates}).

/** `ignored`: nothing to apply, or not this store's invoice; `dead`: given up, alerted, kept for a person. */
export type WebhookInboxState = 'pending' | 'processed' | 'ignored' | 'dead';

/** What a pending entry waits for besides its due time: its invoice's turn to be looked up, or a record of it. */
export type WebhookInboxWaitingFor = 'lookup' | 'record';

/** Every taken webhook delivery, written before it is acknowledged; retries share its unique `dedupeKey`. */
@Entity('invoice_payments_webhook_inbox')
@Index('IDX_invoice_payments_webhook_inbox_due', ['state', 'nextAttemptAt'])
@Index('IDX_invoice_payments_webhook_inbox_invoice', ['gatewayId', 'state'])
@Index('IDX_invoice_payments_webhook_inbox_done', ['state', 'processedAt'])
@Index('IDX_invoice_payments_webhook_inbox_list', ['state', 'receivedAt', 'id'])
export class WebhookInboxEntry {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** `delivery:<delivery_id>` or `hash:<sha256>` (dedupeKeyOf): the service's retries share it. */
  @Column({ name: 'dedupe_key', type: 'varchar', length: 160, unique: true })
  dedupeKey!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  event!: string | null;

  @Column({ name: 'delivery_id', type: 'varchar', length: 128, nullable: true })
  deliveryId!: string | null;

  @Column({ name: 'webhook_id', type: 'varchar', length: 128, nullable: true })
  webhookId!: string | null;

  @Column({ name: 'gateway_id', type: 'varchar', length: 128, nullable: true })
  gatewayId!: string | null;

  /** Finds the record before the checkout stored `gatewayId`. */
  @Column({ type: 'varchar', length: 160, nullable: true })
  referrer!: string | null;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  /** As the service wrote it (service time): part of the hash dedupe key. */
  @Column({ name: 'sent_at', type: 'varchar', length: 32, nullable: true })
  sentAt!: string | null;

  /** JSON; card number, token and bin redacted. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: WebhookInboxState;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @TimestampColumn('next_attempt_at', { nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ name: 'waiting_for', type: 'varchar', length: 16, nullable: true })
  waitingFor!: WebhookInboxWaitingFor | null;

  /** So a crashed processor's claim lapses. */
  @TimestampColumn('locked_until', { nullable: true })
  lockedUntil!: Date | null;

  /** Never a secret. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  outcome!: string | null;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36, nullable: true })
  invoiceRecordId!: string | null;

  @TimestampColumn('received_at')
  receivedAt!: Date;

  @TimestampColumn('processed_at', { nullable: true })
  processedAt!: Date | null;
}

/** The inbox's rows under a lease of `leaseMs()` (instances may share the table); a pending row is open. */
export function webhookInboxRows(
  dataSource: DataSource,
  leaseMs: () => number,
  clock: Clock,
): LeasedRows<WebhookInboxEntry> {
  const table = dataSource.getMetadata(WebhookInboxEntry).tableName;
  const open = (t: string) => `${t}state = 'pending'`;
  const columns = { lockedUntil: 'locked_until', attempts: 'attempts', nextAttemptAt: 'next_attempt_at' };
  return new LeasedRows(dataSource, WebhookInboxEntry, { table, open, ...columns }, leaseMs, clock);
}

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
    private readonly adopt: (invoice: Invoice) => Promise<Adoption>,
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

  /** What the service said, applied to the invoice's record (`found` by number, else by referrer or adoption). */
  async apply(invoice: Invoice, found?: FoundRecord): Promise<Applied> {
    const records = this.dataSource.getRepository(InvoiceRecord);
    const { foreign, ignored, record, applied }: Adoption = found
      ? { record: found.record, foreign: await this.identity.whyNotOurs(invoice, found.record, 'number') }
      : await recordOfInvoice(records, this.identity, invoice, this.adopt);
    // Not this store's, or the store's but no record may take it (handled by the checkout): nothing to apply.
    if (foreign)
      return { kind: 'ignored', outcome: `left alone: not this store's invoice`, lastError: foreign };
    if (ignored) return { kind: 'ignored', outcome: ignored, lastError: null };
    if (!record) return { kind: 'no-record' };
    if (applied)
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
}

/**
 * The writes that end a claimed entry's attempt without applying it: put off to its invoice's turn, retried with the
 * one backoff, waiting for a record, or dead-lettered with an alert.
 */
export class InboxFates {
  /** Dead letters of invoices the service does not know since the last alert about them, and when that was. */
  private unknownSinceAlert = 0;
  private lastUnknownAlert = 0;

  constructor(
    private readonly leased: LeasedRows<WebhookInboxEntry>,
    private readonly options: ResolvedWebhooksOptions,
    private readonly events: EventEmitter2,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** Due again at `at`, its invoice's next turn; not an attempt that failed. */
  async putOff(entries: WebhookInboxEntry[], at: Date): Promise<void> {
    const lastError = `its invoice's lookups are paced (webhooks.lookupWindowMs): looked up at ${at.toISOString()}`;
    await this.leased.finishAll(entries, { waitingFor: 'lookup', nextAttemptAt: at, lastError });
  }

  /** Due again after the inbox's doubling backoff of its attempts (`waitingFor` a record, or nothing but the time). */
  async retryLater(
    entry: WebhookInboxEntry,
    reason: string,
    waitingFor: WebhookInboxWaitingFor | null = null,
  ) {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs);
    const nextAttemptAt = new Date(this.clock.now() + delay);
    await this.leased.finish(entry, { waitingFor, lastError: clip(reason, 2000), nextAttemptAt });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  /** Retried with backoff for `unknownInvoiceWindowMs` after it arrived, then dead. */
  async retryWithin(
    entry: WebhookInboxEntry,
    problem: string,
    waitingFor: WebhookInboxWaitingFor | null = null,
  ) {
    const waited = this.clock.now() - entry.receivedAt.getTime();
    if (waited < this.options.inbox.unknownInvoiceWindowMs)
      return this.retryLater(entry, problem, waitingFor);
    await this.deadLetter(entry, `${problem} (for ${waited} ms)`);
  }

  /** The service knows the invoice and no record holds it: later attempts wait for one without asking again. */
  waitForRecord(entry: WebhookInboxEntry, gatewayId: string): Promise<void> {
    return this.retryWithin(entry, `no invoice record yet for invoice ${gatewayId}`, 'record');
  }

  /** After a failure to apply (a database error): retried later, or dead-lettered once its attempts are spent. */
  async failed(entry: WebhookInboxEntry, problem: string): Promise<void> {
    if (entry.attempts < this.options.inbox.maxAttempts) return this.retryLater(entry, problem);
    await this.deadLetter(entry, `gave up after ${entry.attempts} attempts: ${problem}`);
  }

  /** Closed with nothing to apply: not this store's invoice (`lastError` says why), or handled by the checkout. */
  async ignore(entries: WebhookInboxEntry[], outcome: string, lastError: string | null): Promise<void> {
    await this.leased.finishAll(entries, {
      state: 'ignored',
      waitingFor: null,
      outcome: clip(outcome, 255),
      lastError: clip(lastError, 2000),
      processedAt: this.clock.date(),
    });
  }

  /** Dead-letters an entry, with an alert. */
  async deadLetter(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.bury(entry, reason);
    const what = `invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}`;
    this.alert(`webhook delivery ${entry.id} (${what}) dead-lettered: ${reason}`);
  }

  /** Dead-letters a delivery of an invoice the service does not know: one alert a window, not one per delivery. */
  async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.bury(entry, reason);
    const count = ++this.unknownSinceAlert;
    if (this.clock.now() - this.lastUnknownAlert < this.options.inbox.unknownLookupWindowMs) return;
    this.lastUnknownAlert = this.clock.now();
    this.unknownSinceAlert = 0;
    const named = `${count} webhook delivery(ies) named invoices neither this store nor the service knows`;
    this.alert(`${named} (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`);
  }

  private async bury(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const lastError = clip(reason, 2000);
    await this.leased.finish(entry, {
      state: 'dead',
      waitingFor: null,
      lastError,
      processedAt: this.clock.date(),
    });
  }

  /** Logged (a warning) and emitted. */
  private alert(message: string): void {
    const alert = { kind: 'webhook_dead_letter' as const, orderId: null, invoiceRecordId: null, message };
    raiseAlert(this.events, this.logger, alert, 'warn');
  }
}
