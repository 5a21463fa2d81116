import { Logger } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { type KnownHistory, reportChangesNothing } from '../core/status-plan';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import type { InvoiceIdentity } from '../core/invoice-identity';
import type { DeliveryConfirmation } from './delivery-confirmation';
import { ANSWERED, Closing, InboxRows, message, reportOf } from './inbox-rows';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { UnrecordedDeliveries } from './unrecorded-deliveries';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

/** Invoices confirmed at once within a batch, so a batch does not take every pooled connection. */
const CONCURRENCY = 8;
/** A batch starts once no delivery came for this long... */
const QUIET_MS = 25;
/** ...or this long after the first one that waits for it, so a steady stream is still processed. */
const MAX_WAIT_MS = 1000;

/**
 * The inbox processed a batch at a time, when deliveries are confirmed with the service: the due entries are claimed
 * in one statement, grouped by invoice, and each invoice of the batch costs one lookup at the service and at most
 * one status report, however many of its deliveries wait; the entries it answered are closed together, in one
 * statement for the batch. Entries whose invoice has no record here (yet), or that name no invoice, are taken an
 * entry at a time by {@link UnrecordedDeliveries}: the budget for unknown invoices, the referrer match and late
 * invoices live there.
 */
export class InboxBatch {
  private readonly logger = new Logger('InboxBatch');
  private current: Promise<void> | null = null;
  /** Batches of one running ({@link only}). */
  private readonly singles = new Set<Promise<void>>();
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private waitingSince: number | null = null;
  /** When the last delivery started in (`Date.now()`), before it was stored: see {@link arriving}. */
  private lastArrival = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: InboxRows,
    private readonly confirmation: DeliveryConfirmation,
    private readonly statuses: InvoiceStatusService,
    private readonly options: ResolvedWebhooksOptions,
    private readonly identity: InvoiceIdentity,
    private readonly unrecorded: UnrecordedDeliveries,
  ) {}

  /**
   * Asks for a batch after a quiet moment: {@link QUIET_MS} without a new delivery, or {@link MAX_WAIT_MS} after the
   * first one waiting, whichever comes first. A burst is acknowledged at full speed and then taken in few large
   * batches (one lookup per invoice), and a lone delivery is processed within tens of milliseconds.
   */
  soon(): void {
    if (this.stopped) return;
    const now = Date.now();
    if (this.waitingSince === null) this.waitingSince = now;
    this.arm(Math.min(now + QUIET_MS, this.waitingSince + MAX_WAIT_MS));
  }

  /**
   * A delivery is coming in (called before it is stored). The quiet period counts from arrivals, not from stores:
   * after a pause of this process (a long GC), timers run before the deliveries that queued meanwhile are read,
   * and those must not look like a quiet moment.
   */
  arriving(): void {
    this.lastArrival = Date.now();
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        // After this turn's I/O has been read (setImmediate runs after it): a delivery that came in since is not quiet.
        setImmediate(() => {
          const now = Date.now();
          const since = this.waitingSince ?? now;
          if (this.timer || this.stopped) return;
          if (now - this.lastArrival < QUIET_MS && now < since + MAX_WAIT_MS) {
            this.arm(Math.min(this.lastArrival + QUIET_MS, since + MAX_WAIT_MS));
            return;
          }
          this.waitingSince = null;
          void this.schedule();
        });
      },
      Math.max(0, at - Date.now()),
    );
    this.timer.unref();
  }

  /**
   * Runs batches until none is due, one at a time per process; a call while one runs asks for another after it, so
   * deliveries that arrive during a batch are taken together by the next. Resolves when the batches are done.
   */
  schedule(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.current) {
      this.again = true;
      return this.current;
    }
    const run: Promise<void> = (async () => {
      do {
        this.again = false;
        // A full batch may have left more due entries behind it.
        while ((await this.run()) >= this.options.inbox.batchSize && !this.stopped);
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) => this.logger.error(`webhook inbox batch: ${message(err)}`))
      .finally(() => {
        this.current = null;
      });
    this.current = run;
    return run;
  }

  /** The batch running now (with the ones asked for while it runs), or `null`. */
  get running(): Promise<void> | null {
    return this.current;
  }

  /** Whether a batch is waiting for a quiet moment (it starts within {@link MAX_WAIT_MS}). */
  get waiting(): boolean {
    return this.waitingSince !== null;
  }

  /** Resolves once no batch runs or waits to start (one waiting starts now). */
  async idle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.waitingSince = null;
      void this.schedule();
    }
    while (this.current || this.singles.size > 0) await Promise.allSettled([this.current, ...this.singles]);
  }

  /**
   * Entry `id` as a batch of one, now (a lone delivery a host waits for), once the batch running has passed it: when
   * that batch took the entry, its attempt is the entry's. Resolves once the attempt is over.
   */
  async only(id: string): Promise<void> {
    while (this.current) await this.current;
    if (this.stopped) return;
    const single = (async () => {
      const entry = await this.rows.claim(id, true);
      if (entry) await this.process([entry]);
    })();
    this.singles.add(single);
    try {
      await single;
    } finally {
      this.singles.delete(single);
    }
  }

  /** No batch starts after this (the one running finishes). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Claims up to `inbox.batchSize` due entries and processes them; resolves with how many were claimed. */
  private async run(): Promise<number> {
    const claimed = await this.rows.claimDue(this.options.inbox.batchSize);
    if (claimed.length > 0) await this.process(claimed);
    return claimed.length;
  }

  /** Claimed entries, grouped by invoice: one lookup per invoice, closed together. */
  private async process(claimed: WebhookInboxEntry[]): Promise<void> {
    claimed.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    const byInvoice = new Map<string, WebhookInboxEntry[]>();
    const alone: WebhookInboxEntry[] = [];
    for (const entry of claimed) {
      if (entry.gatewayId === null) alone.push(entry);
      else if (byInvoice.has(entry.gatewayId)) byInvoice.get(entry.gatewayId)?.push(entry);
      else byInvoice.set(entry.gatewayId, [entry]);
    }
    const closings: Closing[] = [];
    // Invoices whose deliveries an applied lookup answered already are closed from memory: no read of their records.
    for (const [gatewayId, entries] of byInvoice) {
      const recordId = this.confirmation.answeredRecord(gatewayId, entries[entries.length - 1].receivedAt);
      if (recordId === null) continue;
      this.rows.unknown.forget(gatewayId);
      for (const entry of entries) closings.push({ entry, outcome: ANSWERED, recordId });
      byInvoice.delete(gatewayId);
    }
    const records = await this.recordsOf([...byInvoice.keys()]);
    const histories = await this.statuses.knownHistories([...records.values()].map((r) => r.id));
    // An error of one entry is its own: logged, the entry retried when its lease lapses.
    const one = (entry: WebhookInboxEntry) =>
      this.unrecorded
        .process(entry)
        .catch((err: unknown) => this.logger.error(`webhook inbox entry ${entry.id}: ${message(err)}`));
    const work: Array<() => Promise<void>> = alone.map((entry) => () => one(entry));
    for (const [gatewayId, entries] of byInvoice) {
      const record = records.get(gatewayId);
      // One after the other: a later entry of the invoice sees what the earlier one learned (budget, verdicts).
      if (!record) work.push(() => entries.reduce((p, e) => p.then(() => one(e)), Promise.resolve()));
      else
        work.push(() =>
          this.confirmInvoice(gatewayId, entries, record, histories.get(record.id) ?? null, closings),
        );
    }
    await runLimited(work, CONCURRENCY);
    await this.rows.closeProcessed(closings);
  }

  /** The records of these invoice numbers, in one query. */
  private async recordsOf(gatewayIds: string[]): Promise<Map<string, InvoiceRecord>> {
    if (gatewayIds.length === 0) return new Map();
    const found = await this.dataSource.getRepository(InvoiceRecord).findBy({ gatewayId: In(gatewayIds) });
    return new Map(found.map((r) => [r.gatewayId as string, r]));
  }

  /**
   * One invoice of the batch: asks the service once, applies what it says (nothing to write when it says nothing
   * new; one guarded statement when the record and its history are still as the batch read them), and leaves every
   * entry of the invoice to be closed with the batch.
   */
  private async confirmInvoice(
    gatewayId: string,
    entries: WebhookInboxEntry[],
    record: InvoiceRecord,
    known: KnownHistory | null,
    closings: Closing[],
  ): Promise<void> {
    this.rows.unknown.forget(gatewayId);
    const newest = entries[entries.length - 1].receivedAt;
    if (this.confirmation.answered(gatewayId, newest)) {
      for (const entry of entries) closings.push({ entry, outcome: ANSWERED, recordId: record.id });
      return;
    }
    const startedAt = new Date();
    let invoice: Invoice | null;
    try {
      invoice = await this.confirmation.lookupShared(gatewayId);
    } catch (err) {
      const problem = `could not confirm invoice ${gatewayId} with the service: ${message(err)}`;
      for (const entry of entries) await this.confirmation.notConfirmed(entry, problem);
      return;
    }
    if (!invoice) {
      const problem = `the service does not know invoice ${gatewayId}`;
      for (const entry of entries) await this.confirmation.notConfirmed(entry, problem);
      return;
    }
    let outcome: string;
    try {
      // The record holds this number; the service must still name the referrer the module sent with it.
      const foreign = await this.identity.whyNotOurs(invoice, record, 'number');
      if (foreign) {
        for (const entry of entries) await this.rows.leftAlone(entry, foreign);
        return;
      }
      if (reportChangesNothing(record, invoice.status.code, invoice)) {
        outcome = 'unchanged: the service reports nothing new (confirmed with the service)';
      } else {
        const { result } = await this.statuses.apply(reportOf(record.id, invoice), {
          record,
          known: known ?? undefined,
        });
        outcome = `${result.applied ? 'applied' : (result.reason ?? 'not applied')} (confirmed with the service)`;
      }
    } catch (err) {
      for (const entry of entries) await this.rows.failed(entry, err);
      return;
    }
    this.confirmation.applied(gatewayId, startedAt, record.id, invoice);
    for (const entry of entries) closings.push({ entry, outcome, recordId: record.id });
  }
}

/** Runs `work` with at most `limit` at once; resolves when all have settled (each handles its own errors). */
async function runLimited(work: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < work.length) await work[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, work.length) }, lane));
}
