import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { InvoiceIdentity, recordOfInvoice } from '../core/invoice-identity';
import { InvoiceStatusService, reportChangesNothing } from '../core/invoice-status.service';
import { type Adoption, LATE_INVOICE_ADOPTER, type LateInvoiceAdopter } from '../core/ports';
import type { KnownHistory } from '../core/status-table';
import type { Invoice } from '../gateway/types';
import { type LeasedRows, purgeFinished } from '../core/queue/leased-rows';
import { QuietStart } from '../core/queue/poller';
import { clip } from '../domain/text-bounds';
import { tracedBatch } from '../core/otel';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { messageOf as message } from '../core/events';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { type Closing, DeliveryConfirmation } from './delivery-confirmation';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import { WEBHOOK_INBOX_ROWS } from './webhook-inbox.rows';

/** Invoices confirmed at once within a batch, so a batch does not take every pooled connection. */
const CONCURRENCY = 8;
/** A batch starts once no delivery came for this many ms, or {@link MAX_WAIT_MS} after the first one waiting. */
const QUIET_MS = 25;
/** Ms after the first delivery waiting that a batch starts however many keep coming (a steady stream). */
const MAX_WAIT_MS = 1000;
/**
 * Paced turns a delivery a host waits for is tried again at (its invoice's lookup put off by the pace); after the
 * last, the host hears of its entry as it stands (still pending: not settled yet).
 */
const PACED_ROUNDS = 3;

/**
 * The inbox a batch at a time under a lease (instances may share a database): due entries claimed in one statement,
 * grouped by invoice (one lookup and at most one report each), closed in one statement; failures retried, then dead.
 */
@Injectable()
export class WebhookInboxProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookInboxProcessor.name);
  private readonly adopt?: (invoice: Invoice) => Promise<Adoption>;
  private readonly quiet = new QuietStart(QUIET_MS, MAX_WAIT_MS, () => void this.schedule());
  private current: Promise<void> | null = null;
  private readonly singles = new Set<Promise<void>>();
  private again = false;
  private stopped = false;
  private interval: NodeJS.Timeout | null = null;
  private lastPurge = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    /** Claims under a lease: due entries oldest first (`o.received_at`), or one by id. */
    @Inject(WEBHOOK_INBOX_ROWS) private readonly leased: LeasedRows<WebhookInboxEntry>,
    private readonly confirmation: DeliveryConfirmation,
    private readonly identity: InvoiceIdentity,
    // Late and duplicate invoices linked, canceled or alerted (the checkout's; absent, matched by referrer).
    @Optional() @Inject(LATE_INVOICE_ADOPTER) late?: LateInvoiceAdopter | null,
  ) {
    this.adopt = late ? (invoice) => late.adopt(invoice, 'webhook') : undefined;
  }

  onModuleInit(): void {
    const ms = this.options.inbox.pollIntervalMs;
    // A burst being taken in already has its batch coming (the quiet period): the periodic poll leaves it be.
    if (ms > 0) this.interval = setInterval(() => void (this.waiting ? undefined : this.poll()), ms).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.quiet.stop();
    if (this.interval) clearInterval(this.interval);
    await this.drain();
  }

  /** An entry was stored: a batch takes it after a quiet moment (a burst in few large batches, a lone one at once). */
  kick(): void {
    this.quiet.wait();
  }

  /** A delivery is being taken in: not a quiet moment. */
  arriving(): void {
    this.quiet.arriving();
  }

  get waiting(): boolean {
    return this.quiet.waiting;
  }

  /** Entry `id` as a batch of one once the batch running has passed it; one the pace put off, at its turn. */
  async processNow(id: string, invoiceKey: string | null = null): Promise<void> {
    for (let round = 0; ; round++) {
      while (this.current) await this.current;
      if (this.stopped) return;
      const single = this.leased.claim(id, true).then(async (e) => {
        if (e) await tracedBatch(1, () => this.process([e]));
      });
      this.singles.add(single);
      await single.finally(() => this.singles.delete(single));
      const turn = invoiceKey === null ? null : await this.pacedTurn(id, invoiceKey);
      if (turn === null || round >= PACED_ROUNDS) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, turn - Date.now())));
    }
  }

  /** Runs batches of every due entry; resolves once they are done. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    if (Date.now() - this.lastPurge >= 3_600_000) {
      this.lastPurge = Date.now();
      void this.purge();
    }
    await this.schedule();
  }

  /** Resolves once no batch runs or waits to start (one waiting starts now). */
  async drain(): Promise<void> {
    if (this.quiet.flush()) void this.schedule();
    while (this.current || this.singles.size > 0) await Promise.allSettled([this.current, ...this.singles]);
  }

  /** Deletes finished rows older than `inbox.retentionMs` (they dedupe the service's retries till then). */
  async purge(): Promise<number> {
    const table = this.dataSource.getMetadata(WebhookInboxEntry).tableName;
    const rule = { table, finished: "state IN ('processed', 'ignored', 'dead')", finishedAt: 'processed_at' };
    try {
      return await purgeFinished(this.dataSource, rule, this.options.inbox.retentionMs, () => this.stopped);
    } catch (err) {
      this.logger.warn(`purging old webhook inbox rows failed: ${message(err)}`);
      return 0;
    }
  }

  /** Runs batches until none is due, one at a time; a call while one runs asks for another after it. */
  schedule(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.current) {
      this.again = true;
      return this.current;
    }
    this.current = (async () => {
      do {
        this.again = false;
        // A full batch may have left more due entries behind it.
        for (let full = true; full && !this.stopped;) {
          const claimed = await this.leased.claimDue(this.options.inbox.batchSize, 'o.received_at');
          if (claimed.length > 0) await tracedBatch(claimed.length, () => this.process(claimed));
          full = claimed.length >= this.options.inbox.batchSize;
        }
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) => this.logger.error(`webhook inbox batch: ${message(err)}`))
      .finally(() => (this.current = null));
    return this.current;
  }

  /** When the entry, still pending, is due because the pace put its invoice's lookup off; else `null`. */
  private async pacedTurn(id: string, gatewayId: string): Promise<number | null> {
    const { confirmation } = this;
    if (confirmation.deferredUntil(gatewayId) === null && confirmation.waitingEntry(gatewayId) !== id)
      return null;
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id });
    const due = entry?.state === 'pending' ? entry.nextAttemptAt?.getTime() : undefined;
    if (due === undefined || due - Date.now() > this.options.lookupWindowMs) return null;
    return due;
  }

  private async process(claimed: WebhookInboxEntry[]): Promise<void> {
    claimed.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    const byInvoice = new Map<string, WebhookInboxEntry[]>();
    for (const entry of claimed) {
      if (entry.gatewayId === null)
        await this.confirmation.deadLetter(entry, 'the delivery names no invoice number');
      else byInvoice.set(entry.gatewayId, [...(byInvoice.get(entry.gatewayId) ?? []), entry]);
    }
    const closings: Closing[] = [];
    // Answered already by an applied lookup: closed from memory, no read of their records.
    for (const [gatewayId, entries] of byInvoice) {
      if (this.confirmation.answered(gatewayId, entries, closings)) byInvoice.delete(gatewayId);
    }
    const { records, referrers } = await this.recordsOf([...byInvoice.keys()], claimed);
    const histories = await this.statuses.knownHistories([...records.values()].map((r) => r.id));
    const work: Array<() => Promise<void>> = [];
    for (const [gatewayId, entries] of byInvoice) {
      const record = records.get(gatewayId);
      const known = histories.get(record?.id ?? '') ?? null;
      const confirm = (some: WebhookInboxEntry[], local: boolean) =>
        this.confirmInvoice(gatewayId, some, record, local, known, closings);
      if (record) work.push(() => confirm(entries, true));
      // No record by number: an entry at a time, so a later one sees what the earlier one learned (budget, verdicts).
      else {
        const local = (e: WebhookInboxEntry) => e.referrer !== null && referrers.has(e.referrer);
        work.push(() => entries.reduce((p, e) => p.then(() => confirm([e], local(e))), Promise.resolve()));
      }
    }
    await runLimited(work, CONCURRENCY);
    const closed = closings.map(({ entry, outcome, recordId }) => {
      return { row: entry, outcome: clip(outcome, 255), invoice_record_id: recordId };
    });
    const processedAt = new Date().toISOString();
    await this.leased.finishEach(closed, { state: 'processed', last_error: null, processed_at: processedAt });
  }

  /** The records of these numbers, and which of the entries' referrers a record holds: one query. */
  private async recordsOf(
    gatewayIds: string[],
    entries: WebhookInboxEntry[],
  ): Promise<{ records: Map<string, InvoiceRecord>; referrers: Set<string> }> {
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

  /** Entries of one invoice (`local`: a record holds its number or referrer): one lookup, its record, applied. */
  private async confirmInvoice(
    gatewayId: string,
    entries: WebhookInboxEntry[],
    found: InvoiceRecord | undefined,
    local: boolean,
    known: KnownHistory | null,
    closings: Closing[],
  ): Promise<void> {
    if (local) {
      this.confirmation.forget(gatewayId);
      if (this.confirmation.answered(gatewayId, entries, closings)) return;
    } else if (!(await this.confirmation.mayLookUp(entries[0], gatewayId))) return;
    const confirmation = await this.confirmation.confirm(entries, gatewayId, local);
    if (!confirmation) return;
    const { invoice, startedAt } = confirmation;
    let outcome: string;
    let record: InvoiceRecord | null;
    try {
      const records = this.dataSource.getRepository(InvoiceRecord);
      const matched: Adoption = found
        ? { record: found, foreign: await this.identity.whyNotOurs(invoice, found, 'number') }
        : await recordOfInvoice(records, this.identity, invoice, this.adopt);
      const { foreign, settled, applied: adopted } = matched;
      record = matched.record;
      // Not this store's, or the store's but no record may take it (handled by the checkout): nothing to apply.
      if (foreign || settled) {
        const lastError = foreign ? clip(foreign, 2000) : null;
        const processedAt = new Date();
        const outcome = foreign ? `left alone: not this store's invoice` : clip(settled ?? '', 255);
        await this.leased.finishAll(entries, { state: 'ignored', outcome, lastError, processedAt });
        return;
      }
      if (!record) {
        for (const entry of entries) await this.confirmation.waitForRecord(entry, invoice.id);
        return;
      }
      this.confirmation.forget(gatewayId);
      if (adopted || (found && reportChangesNothing(found, invoice.status.code, invoice))) {
        outcome = `${adopted ? 'linked to its attempt' : 'unchanged: the service reports nothing new'} (confirmed with the service)`;
      } else {
        const { code, text } = invoice.status;
        const { result } = await this.statuses.apply(
          { recordId: record.id, code, text, source: 'webhook', invoice },
          found ? { record: found, known: known ?? undefined } : undefined,
        );
        outcome = `${result.applied ? 'applied' : (result.reason ?? 'not applied')} (confirmed with the service)`;
      }
    } catch (err) {
      for (const entry of entries) await this.failed(entry, err);
      return;
    }
    this.confirmation.applied(gatewayId, startedAt, record.id, invoice);
    for (const entry of entries) closings.push({ entry, outcome, recordId: record.id });
  }

  /** After a failure to apply (a database error): retried later, or dead-lettered once its attempts are spent. */
  private async failed(entry: WebhookInboxEntry, err: unknown): Promise<void> {
    if (entry.attempts < this.options.inbox.maxAttempts)
      return this.confirmation.retryLater(entry, message(err));
    await this.confirmation.deadLetter(entry, `gave up after ${entry.attempts} attempts: ${message(err)}`);
  }
}

/** Runs `work` with at most `limit` at once (each handles its own errors). */
async function runLimited(work: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < work.length) await work[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, work.length) }, lane));
}
