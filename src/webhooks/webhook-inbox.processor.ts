import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThan } from 'typeorm';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { InvoiceIdentity } from '../core/invoice-identity';
import { recordOfInvoice } from '../core/record-of-invoice';
import { Adoption, LATE_INVOICE_ADOPTER, LateInvoiceAdopter } from '../core/late-invoice.port';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { WEBHOOKS_OPTIONS } from './constants';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import type { ResolvedWebhooksOptions } from './types';
import { purgeFinishedEntries } from './inbox-retention';
import { UnknownInvoices } from './unknown-invoices';
import { clip, InboxRows, message, reportOf } from './inbox-rows';
import { DeliveryConfirmation, NO_RECORD_YET } from './delivery-confirmation';
import { InboxBatch } from './inbox-batch';

/** Entries processed at once by one instance, so a burst does not take every pooled connection. */
const CONCURRENCY = 8;
/** Turns a waited-for entry waits for the pace before its attempt is the answer. */
const PACED_ROUNDS = 3;

/**
 * Applies inbox entries through {@link InvoiceStatusService}, retrying until they stick.
 *
 * An entry is claimed with a conditional update (`locked_until`, a lease), so several instances may poll one
 * database and a crashed processor's claim lapses. Failures are retried with exponential backoff: a delivery for an
 * invoice not known yet (the webhook won the race against the checkout's commit) for `unknownInvoiceWindowMs`,
 * anything else (a database error) up to `maxAttempts`; then the entry is dead-lettered with an `Alert` event.
 * Applying twice is harmless: the transition table records a repeated status as unchanged.
 */
@Injectable()
export class WebhookInboxProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookInboxProcessor.name);
  private readonly running = new Set<Promise<void>>();
  private readonly queue: Array<{ id: string; key: string }> = [];
  private readonly chains = new Map<string, Promise<void>>();
  private readonly queued = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private active = 0;
  private lastPurge = 0;
  private readonly rows: InboxRows;
  /** The confirmation of deliveries with the service; the intake reads its pacing (which entry waits, and till when). */
  readonly confirmation: DeliveryConfirmation;
  private readonly batch: InboxBatch;
  private readonly identity: InvoiceIdentity;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    private readonly events: EventEmitter2,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly gateway: GatewayClient,
    // Late and duplicate invoices (the checkout provides it; absent, the referrer match below applies).
    @Optional() @Inject(LATE_INVOICE_ADOPTER) private readonly lateInvoices?: LateInvoiceAdopter | null,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    const unknown = new UnknownInvoices(unknownLookupsPerWindow, unknownLookupWindowMs, 3_600_000);
    this.rows = new InboxRows(dataSource, events, options, unknown);
    this.confirmation = new DeliveryConfirmation(dataSource, gateway, options, this.rows);
    this.identity = new InvoiceIdentity(gateway, events);
    const one = (entry: WebhookInboxEntry) =>
      this.processClaimed(entry).catch((err: unknown) =>
        this.logger.error(`webhook inbox entry ${entry.id}: ${message(err)}`),
      );
    this.batch = new InboxBatch(
      dataSource,
      this.rows,
      this.confirmation,
      statuses,
      options,
      this.identity,
      one,
    );
  }

  onModuleInit(): void {
    if (!this.options.confirmWithService) {
      this.logger.warn(
        'webhooks.confirmWithService is off: deliveries are applied as their bodies say, without asking the service. ' +
          'UNSAFE: anyone holding one valid service token can mark an order paid.',
      );
    }
    const every = this.options.inbox.pollIntervalMs;
    if (every > 0) {
      // A burst being taken in already has its batch coming (the quiet period): the periodic poll leaves it be.
      this.timer = setInterval(() => void (this.batch.waiting ? undefined : this.poll()), every);
      this.timer.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.batch.stop();
    if (this.timer) clearInterval(this.timer);
    this.queue.length = 0;
    await this.drain();
  }

  /**
   * Processes an entry soon (it is claimed first, so a duplicate kick or another instance is harmless). Entries of
   * one invoice (`invoiceKey`: the service's invoice number) are applied one after the other in the order they
   * were kicked, i.e. as they arrived, so a sender that delivers in order has every step applied.
   */
  kick(id: string, invoiceKey: string | null = null): void {
    // Confirmed deliveries are taken by batches: whatever is due when a batch starts, one lookup per invoice.
    if (this.options.confirmWithService) this.batch.soon();
    else this.enqueue(id, invoiceKey);
  }

  /** A delivery is coming in, not stored yet: the batches' quiet period counts from arrivals. */
  arriving(): void {
    if (this.options.confirmWithService) this.batch.arriving();
  }

  private enqueue(id: string, invoiceKey: string | null): void {
    if (this.stopped || this.queued.has(id)) return;
    this.queued.add(id);
    this.queue.push({ id, key: invoiceKey ?? id });
    this.pump();
  }

  /**
   * Processes an entry now, in its invoice's order, and resolves once that attempt is over (applied, retrying later
   * or dead), its own or that of the batch that claimed the entry first; an entry whose invoice's lookup the pace
   * put off is attempted when its turn comes. For hosts that must know the outcome before they answer
   * ({@link HostDeliveries}); the module's own route only {@link kick}s.
   */
  async processNow(id: string, invoiceKey: string | null = null): Promise<void> {
    for (let round = 0; ; round++) {
      await this.attemptNow(id, invoiceKey);
      // Its invoice's lookup put off by the pace (at most `lookupWindowMs`): its turn is waited for, not a failure.
      const turn = invoiceKey === null ? null : await this.pacedTurn(id, invoiceKey);
      if (turn === null || round >= PACED_ROUNDS || this.stopped) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, turn - Date.now())));
    }
  }

  private async attemptNow(id: string, invoiceKey: string | null): Promise<void> {
    const key = invoiceKey ?? id;
    this.enqueue(id, key);
    // Wait for the chain of this invoice to pass the entry: queued entries join the chain when a slot frees up.
    while (!this.stopped && (this.queued.has(id) || this.chains.has(key))) {
      await (this.chains.get(key) ?? Promise.race([...this.running]));
    }
    // A batch may have claimed it first (the poll, or the quiet period after an arrival): that batch's attempt is
    // the entry's attempt, so wait for it rather than answer that nothing was settled.
    await this.batch.running;
  }

  /** When the entry, still pending, is due because the pace put its invoice's lookup off; else `null`. */
  private async pacedTurn(id: string, gatewayId: string): Promise<number | null> {
    const paced = this.confirmation.paced;
    if (paced.deferredUntil(gatewayId) === null && paced.waitingEntry(gatewayId) !== id) return null;
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id });
    const due = entry?.state === 'pending' ? entry.nextAttemptAt?.getTime() : undefined;
    if (due === undefined || due - Date.now() > this.options.lookupWindowMs) return null;
    return due;
  }

  /**
   * Queues every due entry (pending, due, unclaimed or lease lapsed), up to `batchSize` (with confirmation: starts
   * a batch, which claims them itself, and resolves once the batches are done).
   */
  async poll(): Promise<number> {
    if (this.stopped) return 0;
    const now = new Date();
    this.purgeHourly(now);
    if (this.options.confirmWithService) {
      await this.batch.schedule();
      return 0;
    }
    try {
      const due = await this.rows.dueIds(now, this.options.inbox.batchSize);
      for (const { id, gatewayId } of due) this.enqueue(id, gatewayId);
      return due.length;
    } catch (err) {
      this.logger.warn(`polling the webhook inbox failed: ${message(err)}`);
      return 0;
    }
  }

  private purgeHourly(now: Date): void {
    if (now.getTime() - this.lastPurge < 3_600_000) return;
    this.lastPurge = now.getTime();
    void this.purge();
  }

  /** Resolves once nothing is queued or being processed (retries waiting on their time are not awaited). */
  async drain(): Promise<void> {
    await this.batch.idle();
    while (this.running.size > 0 || (this.queue.length > 0 && !this.stopped)) {
      await Promise.allSettled([...this.running]);
      if (this.running.size === 0 && this.queue.length > 0) this.pump();
    }
  }

  private pump(): void {
    while (!this.stopped && this.active < CONCURRENCY && this.queue.length > 0) {
      const { id, key } = this.queue.shift() as { id: string; key: string };
      this.queued.delete(id);
      this.active++;
      // Behind the invoice's previous entry; the head of every chain holds a slot, so the chains always move.
      const previous = this.chains.get(key) ?? Promise.resolve();
      const run = previous
        .then(() => this.process(id))
        .catch((err: unknown) => this.logger.error(`webhook inbox entry ${id}: ${message(err)}`))
        .finally(() => {
          this.active--;
          this.running.delete(run);
          if (this.chains.get(key) === run) this.chains.delete(key);
          this.pump();
        });
      this.chains.set(key, run);
      this.running.add(run);
    }
  }

  private async process(id: string): Promise<void> {
    const entry = await this.rows.claim(id, true);
    if (entry) await this.processClaimed(entry);
  }

  /** One claimed entry, on its own (see {@link InboxBatch} for the batch path). */
  private async processClaimed(entry: WebhookInboxEntry): Promise<void> {
    // With confirmation the stored body only names the invoice, and its number was read (normalized) at receipt:
    // the body is not read a second time. Without confirmation it is what gets applied.
    const named = this.options.confirmWithService ? entry.gatewayId : null;
    const local = named === null ? true : await this.confirmation.admit(entry, named);
    if (local === null) return;
    // Answered by a lookup applied after it arrived: the confirmation remembers the record it was applied to.
    const answeredBy =
      local && named !== null ? this.confirmation.answeredRecord(named, entry.receivedAt) : null;
    if (answeredBy !== null) return this.rows.closeAnswered(entry, answeredBy);
    const delivered = named === null ? await this.rows.storedInvoice(entry, this.gateway) : null;
    if (named === null && !delivered) return;
    // The body is a trigger, the service the truth: what is applied is what the service says now.
    const confirmation = this.options.confirmWithService
      ? await this.confirmation.confirm(entry, named ?? (delivered as Invoice).id, local)
      : null;
    if (this.options.confirmWithService && !confirmation) return;
    const invoice = confirmation?.invoice ?? (delivered as Invoice);
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
      if (!local && named !== null) this.rows.unknown.forget(named);
      if (confirmation) {
        await this.apply(entry, invoice, record, 'confirmed with the service');
        // Deliveries of this invoice that arrived before the lookup are answered by it: one lookup serves them all.
        return this.confirmation.applied(invoice.id, confirmation.startedAt, record.id, invoice);
      }
      // Deliveries of this invoice that arrived earlier and still wait (it was unknown then) go first, so once the
      // record exists the reports are applied in the order they came.
      await this.applyEarlier(entry, record);
      await this.apply(entry, invoice, record);
    } catch (err) {
      return this.rows.failed(entry, err);
    }
  }

  /** Deletes finished inbox rows older than `inbox.retentionMs` (see {@link purgeFinishedEntries}). */
  async purge(): Promise<number> {
    try {
      return await purgeFinishedEntries(this.dataSource, this.options.inbox.retentionMs, () => this.stopped);
    } catch (err) {
      this.logger.warn(`purging old webhook inbox rows failed: ${message(err)}`);
      return 0;
    }
  }

  private async applyEarlier(entry: WebhookInboxEntry, record: InvoiceRecord): Promise<void> {
    if (!entry.gatewayId) return;
    const earlier = await this.dataSource.getRepository(WebhookInboxEntry).find({
      where: { gatewayId: entry.gatewayId, state: 'pending', receivedAt: LessThan(entry.receivedAt) },
      order: { receivedAt: 'ASC' },
    });
    for (const waiting of earlier) {
      const claimed = await this.rows.claim(waiting.id, false);
      if (!claimed) continue; // another processor has it
      const invoice = await this.rows.storedInvoice(claimed, this.gateway);
      if (!invoice) continue;
      try {
        await this.apply(claimed, invoice, record);
      } catch (err) {
        await this.rows.retryLater(claimed, message(err));
      }
    }
  }

  private async apply(
    entry: WebhookInboxEntry,
    invoice: Invoice,
    record: InvoiceRecord,
    how?: string,
  ): Promise<void> {
    const result = await this.statuses.applyReport(reportOf(record.id, invoice));
    await this.rows.finish(entry, {
      state: 'processed',
      outcome: clip(
        `${result.applied ? 'applied' : (result.reason ?? 'not applied')}${how ? ` (${how})` : ''}`,
        255,
      ),
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
    const adopt = this.lateInvoices
      ? (late: Invoice) => (this.lateInvoices as LateInvoiceAdopter).adopt(late, 'webhook')
      : undefined;
    return recordOfInvoice(this.dataSource.getRepository(InvoiceRecord), this.identity, invoice, adopt);
  }
}
