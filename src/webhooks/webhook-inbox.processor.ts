import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { bulkhead } from 'cockatiel';
import { DataSource } from 'typeorm';
import { messageOf as message } from '../core/events';
import { InvoiceIdentity } from '../core/invoice-identity';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { traced } from '../core/otel';
import { LATE_INVOICE_ADOPTER, type LateInvoiceAdopter } from '../core/ports';
import { type LeasedRows, purgeFinished } from '../core/queue/leased-rows';
import { Poller, QuietStart } from '../core/queue/poller';
import { CLOCK, type Clock } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { type Confirmation, DeliveryConfirmation, LookupPacer } from './invoice-lookup';
import {
  type Applied,
  type FoundRecord,
  InboxFates,
  InboxRecords,
  WebhookInboxEntry,
  webhookInboxRows,
} from './webhook-inbox';

/** Invoices confirmed at once within a batch, so a batch does not take every pooled connection. */
const CONCURRENCY = 8;
/** A batch starts once no delivery came for this many ms, or {@link MAX_WAIT_MS} after the first one waiting. */
const QUIET_MS = 25;
/** Ms after the first delivery waiting that a batch starts however many keep coming (a steady stream). */
const MAX_WAIT_MS = 1000;
/** Lookup windows a host waits for its entry put off to its invoice's turn; then it hears it as it stands. */
const HOST_WAIT_WINDOWS = 3;
const ANSWERED = 'answered by a confirmation with the service made after it arrived';

type Closing = { entry: WebhookInboxEntry; outcome: string; recordId: string };

/** What one batch did besides applying: the entries it closed, and those it put off to their invoice's turn. */
type BatchWork = { closings: Closing[]; putOff: Set<string> };

/**
 * The inbox a batch at a time under a lease (instances may share a database): due entries claimed in one statement,
 * grouped by invoice (one lookup and at most one report each), closed in one statement; failures retried, then dead.
 * The one owner of an entry's life once stored. Rounds run on the one {@link Poller}: every `inbox.pollIntervalMs`,
 * and after a quiet moment once deliveries arrive.
 */
@Injectable()
export class WebhookInboxProcessor extends Poller<number> implements OnModuleInit {
  private readonly quiet = new QuietStart(QUIET_MS, MAX_WAIT_MS, () => this.roundNow());
  private readonly fates: InboxFates;
  private readonly records: InboxRecords;
  private readonly leased: LeasedRows<WebhookInboxEntry>;
  /** Entries a host waits for, each with what ends its wait; and the entries a batch of this process holds. */
  private readonly hosts = new Map<string, Set<() => void>>();
  private readonly inBatch = new Set<string>();
  private stopped = false;
  /** Rounds started so far, so {@link drain} knows whether the round it joined began before it was called. */
  private rounds = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly confirmation: DeliveryConfirmation,
    private readonly pacer: LookupPacer,
    identity: InvoiceIdentity,
    events: EventEmitter2,
    @Inject(CLOCK) clock: Clock,
    @Inject(LATE_INVOICE_ADOPTER) late: LateInvoiceAdopter,
  ) {
    super('webhook inbox', new Logger(WebhookInboxProcessor.name), options.inbox.pollIntervalMs, clock);
    this.leased = webhookInboxRows(dataSource, () => options.inbox.leaseMs, clock);
    this.fates = new InboxFates(this.leased, options, events, this.logger, clock);
    this.records = new InboxRecords(dataSource, identity, statuses, (invoice) =>
      late.adopt(invoice, 'webhook'),
    );
  }

  onModuleInit(): void {
    if (this.options.inbox.pollIntervalMs > 0) this.start();
  }

  override async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.quiet.stop();
    await super.onModuleDestroy();
    for (const ends of this.hosts.values()) ends.forEach((end) => end());
  }

  /** An entry was stored: a batch takes it after a quiet moment (a burst in few large batches, a lone one at once). */
  override kick(): void {
    this.quiet.wait();
  }

  /** A delivery is being taken in: not a quiet moment. */
  arriving(): void {
    this.quiet.arriving();
  }

  /**
   * Resolves once a batch has taken entry `id` (stored pending a moment ago): closed, retried or dead-lettered. One
   * put off to its invoice's turn is waited for until a poll takes it, up to a few lookup windows; a host that must
   * answer with the outcome (Medusa, the provider) then reads the entry as it stands.
   */
  handled(id: string): Promise<void> {
    const { lookupWindowMs, inbox } = this.options;
    return new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        const ends = this.hosts.get(id);
        ends?.delete(end);
        if (ends?.size === 0) this.hosts.delete(id);
        resolve();
      };
      const timer = setTimeout(
        () => {
          if (!this.inBatch.has(id)) end();
        },
        HOST_WAIT_WINDOWS * lookupWindowMs + inbox.pollIntervalMs,
      );
      timer.unref();
      this.hosts.set(id, (this.hosts.get(id) ?? new Set()).add(end));
      this.roundNow();
    });
  }

  /** Resolves once no round runs or waits to start (one waiting for its quiet moment starts now). */
  async drain(): Promise<void> {
    const waiting = this.quiet.flush();
    const started = this.rounds;
    await this.runOnce();
    // The round joined had started before the call, so before the waiting entries were kicked: one more takes them.
    if (waiting && this.rounds === started) await this.runOnce();
  }

  /** Deletes finished rows older than `inbox.retentionMs` (they dedupe the service's retries till then). */
  async purge(stopped: () => boolean = () => this.stopped): Promise<number> {
    const table = this.dataSource.getMetadata(WebhookInboxEntry).tableName;
    const rule = { table, finished: "state IN ('processed', 'ignored', 'dead')", finishedAt: 'processed_at' };
    return purgeFinished(this.dataSource, rule, this.options.inbox.retentionMs, this.clock.now(), stopped);
  }

  protected override hourly(stopped: () => boolean): Promise<number> {
    return this.purge(stopped);
  }

  /** Batches of due entries until one comes back short. A burst still being taken in waits for its quiet moment. */
  protected async round(stopped: () => boolean): Promise<number> {
    if (this.quiet.waiting) return 0;
    this.rounds++;
    const { batchSize } = this.options.inbox;
    let taken = 0;
    for (let full = true; full && !stopped();) {
      const claimed = await this.leased.claimDue(batchSize, 'o.received_at');
      // One span a batch, its lookups its children.
      const span = { 'invoice_payments.deliveries': claimed.length };
      if (claimed.length > 0)
        await traced('invoice_payments webhook.process', span, () => this.process(claimed));
      taken += claimed.length;
      full = claimed.length >= batchSize;
    }
    return taken;
  }

  /** A round as soon as possible: the poll's next one when it runs, else one now (`inbox.pollIntervalMs` 0). */
  private roundNow(): void {
    if (this.stopped) return;
    if (this.running) return super.kick();
    void this.runOnce().catch((err: unknown) => this.logger.error(`webhook inbox round: ${message(err)}`));
  }

  private async process(claimed: WebhookInboxEntry[]): Promise<void> {
    const work: BatchWork = { closings: [], putOff: new Set() };
    claimed.forEach((entry) => this.inBatch.add(entry.id));
    try {
      await this.processBatch(claimed, work);
    } finally {
      for (const { id } of claimed) {
        this.inBatch.delete(id);
        // A host waits on for an entry put off to its invoice's turn: a later poll takes it.
        if (!work.putOff.has(id)) this.hosts.get(id)?.forEach((end) => end());
      }
    }
  }

  private async processBatch(claimed: WebhookInboxEntry[], work: BatchWork): Promise<void> {
    claimed.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    const byInvoice = new Map<string, WebhookInboxEntry[]>();
    for (const entry of claimed) {
      if (entry.gatewayId === null) {
        await this.fates.deadLetter(entry, 'the delivery names no invoice number');
        continue;
      }
      const some = byInvoice.get(entry.gatewayId) ?? [];
      byInvoice.set(entry.gatewayId, [...some, entry]);
    }
    // Answered already by an applied lookup: closed from memory, no read of their records.
    for (const [gatewayId, entries] of byInvoice) {
      if (this.answered(gatewayId, entries, work.closings)) byInvoice.delete(gatewayId);
    }
    const { records, referrers } = await this.records.of([...byInvoice.keys()], claimed);
    const histories = await this.statuses.knownHistories([...records.values()].map((r) => r.id));
    const tasks: Array<() => Promise<void>> = [];
    for (const [gatewayId, entries] of byInvoice) {
      const record = records.get(gatewayId);
      const known = histories.get(record?.id ?? '') ?? null;
      if (record) {
        tasks.push(() => this.confirmInvoice(gatewayId, entries, true, work, { record, known }));
        continue;
      }
      // No record by number: an entry at a time, so a later one sees what the earlier one learned (pace, verdicts).
      tasks.push(async () => {
        for (const entry of entries) {
          const local = entry.referrer !== null && referrers.has(entry.referrer);
          await this.confirmInvoice(gatewayId, [entry], local, work);
        }
      });
    }
    // At most CONCURRENCY at once, in order (each handles its own errors).
    const lanes = bulkhead(CONCURRENCY, Infinity);
    await Promise.all(tasks.map((task) => lanes.execute(task)));
    const closed = work.closings.map(({ entry, outcome, recordId }) => {
      return { row: entry, outcome: clip(outcome, 255), invoice_record_id: recordId };
    });
    const processed = { state: 'processed', waiting_for: null, last_error: null };
    await this.leased.finishEach(closed, { ...processed, processed_at: this.clock.date().toISOString() });
  }

  /** Whether an applied lookup that started after the last of `entries` arrived answers them (then closed so). */
  private answered(gatewayId: string, entries: WebhookInboxEntry[], closings: Closing[]): boolean {
    const answer = this.confirmation.answerOf(gatewayId, entries[entries.length - 1].receivedAt);
    if (answer === null) return false;
    this.confirmation.forget(gatewayId);
    for (const entry of entries) closings.push({ entry, outcome: ANSWERED, recordId: answer.recordId });
    return true;
  }

  /** Entries of one invoice (`local`: a record holds its number or referrer): one lookup, its record, applied. */
  private async confirmInvoice(
    gatewayId: string,
    entries: WebhookInboxEntry[],
    local: boolean,
    work: BatchWork,
    found?: FoundRecord,
  ): Promise<void> {
    if (local) {
      this.confirmation.forget(gatewayId);
      if (this.answered(gatewayId, entries, work.closings)) return;
    }
    const confirmation = await this.confirmation.confirm(entries, gatewayId, local);
    if (confirmation.kind !== 'confirmed') return this.notConfirmed(gatewayId, entries, confirmation, work);
    const { invoice, startedAt } = confirmation;
    let applied: Applied;
    try {
      applied = await this.records.apply(invoice, found);
    } catch (err) {
      for (const entry of entries) await this.fates.failed(entry, message(err));
      return;
    }
    if (applied.kind === 'ignored') return this.fates.ignore(entries, applied.outcome, applied.lastError);
    if (applied.kind === 'no-record') {
      for (const entry of entries) await this.fates.waitForRecord(entry, invoice.id);
      return;
    }
    this.confirmation.forget(gatewayId);
    this.confirmation.applied(gatewayId, startedAt, applied.recordId, invoice);
    for (const entry of entries) work.closings.push({ entry, ...applied });
  }

  /** Entries whose invoice was not confirmed: put off to its turn, retried, waiting for a record, or dead. */
  private async notConfirmed(
    gatewayId: string,
    entries: WebhookInboxEntry[],
    confirmation: Exclude<Confirmation, { kind: 'confirmed' }>,
    work: BatchWork,
  ): Promise<void> {
    if (confirmation.kind === 'put-off') {
      await this.fates.putOff(entries, confirmation.at);
      entries.forEach((entry) => work.putOff.add(entry.id));
      this.pacer.waiting(gatewayId, entries[entries.length - 1].id, confirmation.at);
      return;
    }
    for (const entry of entries) {
      if (confirmation.kind === 'retry') await this.fates.retryWithin(entry, confirmation.problem);
      else if (confirmation.kind === 'unknown')
        await this.fates.deadLetterUnknown(entry, confirmation.problem);
      else await this.fates.waitForRecord(entry, gatewayId);
    }
  }
}
