import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, IsNull, LessThan } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { LATE_INVOICE_ADOPTER, LateInvoiceAdopter } from '../core/late-invoice.port';
import { isPostgres, runStatement } from '../core/transaction';
import { queryReturning } from '../core/typeorm-compat';
import { GatewayClient } from '../gateway/gateway.client';
import { normalizeInvoice } from '../gateway/invoice.normalizer';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { WEBHOOKS_OPTIONS } from './constants';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import type { ResolvedWebhooksOptions } from './types';
import { purgeFinishedEntries } from './inbox-retention';
import { UnknownInvoices } from './unknown-invoices';

/** Entries processed at once by one instance, so a burst does not take every pooled connection. */
const CONCURRENCY = 8;
/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
const NO_RECORD_YET = 'no invoice record yet';

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
  private readonly lookups = new Map<string, Promise<Invoice | null>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private active = 0;
  private lastPurge = 0;
  private readonly unknown: UnknownInvoices;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    private readonly events: EventEmitter2,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly gateway: GatewayClient,
    // Issue 13: late and duplicate invoices (the checkout provides it; absent, the referrer match below applies).
    @Optional() @Inject(LATE_INVOICE_ADOPTER) private readonly lateInvoices?: LateInvoiceAdopter | null,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.unknown = new UnknownInvoices(unknownLookupsPerWindow, unknownLookupWindowMs, 3_600_000);
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
      this.timer = setInterval(() => void this.poll(), every);
      this.timer.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
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
    if (this.stopped || this.queued.has(id)) return;
    this.queued.add(id);
    this.queue.push({ id, key: invoiceKey ?? id });
    this.pump();
  }

  /**
   * Processes an entry now, in its invoice's order, and resolves once that attempt is over (applied, retrying later
   * or dead). For hosts that must know the outcome before they answer, such as a Medusa provider's
   * `getWebhookActionAndData`; the module's own route only {@link kick}s.
   */
  async processNow(id: string, invoiceKey: string | null = null): Promise<void> {
    const key = invoiceKey ?? id;
    this.kick(id, key);
    // Wait for the chain of this invoice to pass the entry: queued entries join the chain when a slot frees up.
    while (!this.stopped && (this.queued.has(id) || this.chains.has(key))) {
      await (this.chains.get(key) ?? Promise.race([...this.running]));
    }
  }

  /** Queues every due entry (pending, due, unclaimed or lease lapsed), up to `batchSize`. */
  async poll(): Promise<number> {
    if (this.stopped) return 0;
    const now = new Date();
    try {
      const due = await this.dataSource
        .getRepository(WebhookInboxEntry)
        .createQueryBuilder('e')
        .select('e.id', 'id')
        .addSelect('e.gatewayId', 'gatewayId')
        .where('e.state = :state', { state: 'pending' })
        .andWhere('e.nextAttemptAt <= :now', { now: now.toISOString() })
        .andWhere(new Brackets((w) => w.where('e.lockedUntil IS NULL').orWhere('e.lockedUntil <= :now')))
        .orderBy('e.receivedAt', 'ASC')
        .limit(this.options.inbox.batchSize)
        .getRawMany<{ id: string; gatewayId: string | null }>();
      for (const { id, gatewayId } of due) this.kick(id, gatewayId);
      if (now.getTime() - this.lastPurge >= 3_600_000) {
        this.lastPurge = now.getTime();
        void this.purge();
      }
      return due.length;
    } catch (err) {
      this.logger.warn(`polling the webhook inbox failed: ${message(err)}`);
      return 0;
    }
  }

  /** Resolves once nothing is queued or being processed (retries waiting on their time are not awaited). */
  async drain(): Promise<void> {
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
    const entry = await this.claim(id, true);
    if (!entry) return;
    // With confirmation the stored body only names the invoice, and its number was read (normalized) at receipt:
    // the body is not read a second time. Without confirmation it is what gets applied.
    const named = this.options.confirmWithService ? entry.gatewayId : null;
    const local = named === null ? true : await this.admit(entry, named);
    if (local === null) return;
    const delivered = named === null ? await this.invoiceOf(entry) : null;
    if (named === null && !delivered) return;
    // The body is a trigger, the service the truth: what is applied is what the service says now.
    const confirmation = this.options.confirmWithService
      ? await this.confirm(entry, named ?? (delivered as Invoice).id, local)
      : null;
    if (this.options.confirmWithService && !confirmation) return;
    const invoice = confirmation?.invoice ?? (delivered as Invoice);
    try {
      const record = await this.findRecord(invoice);
      if (!record) {
        const waited = Date.now() - entry.receivedAt.getTime();
        if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
          return this.deadLetter(
            entry,
            null,
            `no invoice record for invoice ${invoice.id} after ${waited} ms`,
          );
        }
        // Later deliveries of this invoice wait for a record too, without asking the service again.
        if (!local) this.unknown.remember(invoice.id, 'no-record');
        return this.retryLater(entry, `${NO_RECORD_YET} for invoice ${invoice.id}`);
      }
      if (invoice.referrer !== null && invoice.referrer !== record.referrer) {
        const why = `invoice ${invoice.id} has referrer ${invoice.referrer} at the service, not ${record.referrer}: not applied to record ${record.id}`;
        return this.deadLetter(entry, record.id, why);
      }
      if (confirmation) {
        await this.apply(entry, invoice, record, 'confirmed with the service');
        // Deliveries of this invoice that arrived before the lookup are answered by it: one lookup serves them all.
        return this.closeCovered(entry, record, confirmation.startedAt);
      }
      // Deliveries of this invoice that arrived earlier and still wait (it was unknown then) go first, so once the
      // record exists the reports are applied in the order they came.
      await this.applyEarlier(entry, record);
      await this.apply(entry, invoice, record);
    } catch (err) {
      if (entry.attempts >= this.options.inbox.maxAttempts) {
        return this.deadLetter(entry, null, `gave up after ${entry.attempts} attempts: ${message(err)}`);
      }
      return this.retryLater(entry, message(err));
    }
  }

  /**
   * The invoice as the service reports it now (profile `lookup.byId`), or `null` after scheduling a retry: the
   * service unreachable, or not (yet) knowing the invoice, is retried with backoff for `unknownInvoiceWindowMs`,
   * then dead-lettered with an alert. Nothing is held open while the service is asked.
   */
  private async confirm(
    entry: WebhookInboxEntry,
    gatewayId: string,
    local: boolean,
  ): Promise<{ invoice: Invoice; startedAt: Date } | null> {
    const startedAt = new Date();
    let problem: string;
    try {
      const invoice = await this.lookupShared(gatewayId);
      if (invoice) return { invoice, startedAt };
      problem = `the service does not know invoice ${gatewayId}`;
      if (!local) {
        // Neither this store nor the service knows it: nothing will ever apply. Dead at once, remembered.
        this.unknown.remember(gatewayId, 'unknown');
        await this.deadLetterUnknown(entry, problem);
        return null;
      }
    } catch (err) {
      problem = `could not confirm invoice ${gatewayId} with the service: ${message(err)}`;
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
      await this.deadLetter(entry, null, `${problem} (for ${waited} ms)`);
    } else {
      await this.retryLater(entry, problem);
    }
    return null;
  }

  /**
   * Whether a delivery naming `gatewayId` may be confirmed now: `true` the invoice has a record here, `false` it has
   * none but may be looked up (within the window's budget of such lookups), `null` when the entry was dealt with
   * here: dead-lettered (the service said it does not know it), or postponed without asking the service (budget
   * spent, or the service already confirmed it and no record exists yet). So deliveries for invoices this store
   * does not know cost about one lookup per invoice, whatever their number.
   */
  private async admit(entry: WebhookInboxEntry, gatewayId: string): Promise<boolean | null> {
    const repo = this.dataSource.getRepository(InvoiceRecord);
    const where = [{ gatewayId }, ...(entry.referrer ? [{ referrer: entry.referrer }] : [])];
    if (await repo.exists({ where })) {
      this.unknown.forget(gatewayId);
      return true;
    }
    const verdict = this.unknown.verdictOf(gatewayId);
    if (verdict === 'unknown') {
      await this.deadLetterUnknown(entry, `the service does not know invoice ${gatewayId}`);
      return null;
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (verdict === 'no-record' || entry.lastError?.startsWith(NO_RECORD_YET)) {
      if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
        await this.deadLetter(entry, null, `no invoice record for invoice ${gatewayId} after ${waited} ms`);
      } else {
        await this.retryLater(entry, `${NO_RECORD_YET} for invoice ${gatewayId}`);
      }
      return null;
    }
    const wait = this.unknown.spendLookup();
    if (wait !== null) {
      await this.finish(entry, {
        lastError: `lookups of invoices without a record are limited; invoice ${gatewayId} waits`,
        nextAttemptAt: new Date(Date.now() + Math.max(wait, 1)),
      });
      return null;
    }
    return false;
  }

  /** Dead-letters a delivery for an invoice the service does not know; one alert a window, not one per delivery. */
  private async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.finish(entry, { state: 'dead', lastError: clip(reason, 2000), processedAt: new Date() });
    const count = this.unknown.countForAlert();
    if (count === 0) return;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    this.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: null,
      message: `${count} webhook delivery(ies) named invoices neither this store nor the service knows (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`,
    });
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

  /** One lookup per invoice at a time, whatever number of deliveries wait for it. */
  private lookupShared(gatewayId: string): Promise<Invoice | null> {
    let pending = this.lookups.get(gatewayId);
    if (!pending) {
      pending = this.gateway.findInvoiceById(gatewayId).finally(() => this.lookups.delete(gatewayId));
      this.lookups.set(gatewayId, pending);
    }
    return pending;
  }

  /** Marks the other pending deliveries of the invoice received before `until` as answered by one confirmation. */
  private async closeCovered(entry: WebhookInboxEntry, record: InvoiceRecord, until: Date): Promise<void> {
    if (!entry.gatewayId) return;
    const others = await this.dataSource.getRepository(WebhookInboxEntry).find({
      where: { gatewayId: entry.gatewayId, state: 'pending', receivedAt: LessThan(until) },
      select: { id: true },
    });
    for (const other of others) {
      if (other.id === entry.id) continue;
      const claimed = await this.claim(other.id, false);
      if (!claimed) continue; // another processor has it
      await this.finish(claimed, {
        state: 'processed',
        outcome: clip(`answered by the confirmation of delivery ${entry.id}`, 255),
        invoiceRecordId: record.id,
        lastError: null,
        processedAt: new Date(),
      });
    }
  }

  /**
   * Takes an entry for this processor (lease), or `null` when it is taken, done, or (with `dueOnly`) not due: one
   * conditional `UPDATE ... RETURNING`, so the claim and the read are one round trip.
   */
  private async claim(id: string, dueOnly: boolean): Promise<WebhookInboxEntry | null> {
    const now = new Date().toISOString();
    const lease = new Date(Date.now() + this.options.inbox.leaseMs).toISOString();
    const postgres = isPostgres(this.dataSource);
    const [p1, p2, p3] = postgres ? ['$1', '$2', '$3'] : ['?', '?', '?'];
    const due = dueOnly ? ` AND next_attempt_at <= ${p3}` : '';
    const sql =
      `UPDATE invoice_payments_webhook_inbox SET locked_until = ${p1}, attempts = attempts + 1 ` +
      `WHERE id = ${p2} AND state = 'pending' AND (locked_until IS NULL OR locked_until <= ${p3})${due} RETURNING *`;
    // Parameters by position: SQLite's `?` takes them in order, PostgreSQL's `$3` may repeat.
    const params = postgres ? [lease, id, now] : dueOnly ? [lease, id, now, now] : [lease, id, now];
    const rows = await runStatement(this.dataSource, (em) => queryReturning(em, sql, params));
    return rows.length > 0 ? this.entryOf(rows[0]) : null;
  }

  /** An inbox entity from a raw row, through the columns' transformers. */
  private entryOf(row: Record<string, unknown>): WebhookInboxEntry {
    const entry = new WebhookInboxEntry();
    for (const column of this.dataSource.getMetadata(WebhookInboxEntry).columns) {
      const transformer = column.transformer;
      const value = row[column.databaseName];
      column.setEntityValue(
        entry,
        transformer && !Array.isArray(transformer) ? transformer.from(value) : value,
      );
    }
    return entry;
  }

  /** The stored invoice, or `null` after dead-lettering an entry whose payload cannot be read. */
  private async invoiceOf(entry: WebhookInboxEntry): Promise<Invoice | null> {
    try {
      // The payload stored is the invoice the delivery carried (its `raw`), read with the profile's codes.
      const { codes } = await this.gateway.wireProfile();
      return normalizeInvoice(JSON.parse(entry.payload), 'webhook', { codes });
    } catch (err) {
      await this.deadLetter(entry, null, `stored payload unreadable: ${message(err)}`);
      return null;
    }
  }

  private async applyEarlier(entry: WebhookInboxEntry, record: InvoiceRecord): Promise<void> {
    if (!entry.gatewayId) return;
    const earlier = await this.dataSource.getRepository(WebhookInboxEntry).find({
      where: { gatewayId: entry.gatewayId, state: 'pending', receivedAt: LessThan(entry.receivedAt) },
      order: { receivedAt: 'ASC' },
    });
    for (const waiting of earlier) {
      const claimed = await this.claim(waiting.id, false);
      if (!claimed) continue; // another processor has it
      const invoice = await this.invoiceOf(claimed);
      if (!invoice) continue;
      try {
        await this.apply(claimed, invoice, record);
      } catch (err) {
        await this.retryLater(claimed, message(err));
      }
    }
  }

  private async apply(
    entry: WebhookInboxEntry,
    invoice: Invoice,
    record: InvoiceRecord,
    how?: string,
  ): Promise<void> {
    const result = await this.statuses.applyReport({
      recordId: record.id,
      code: invoice.status.code,
      text: invoice.status.text,
      source: 'webhook',
      invoice,
    });
    await this.finish(entry, {
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

  /** The record of the service's invoice: by invoice number, else by the referrer we sent (see the class notes). */
  private async findRecord(invoice: Invoice): Promise<InvoiceRecord | null> {
    const repo = this.dataSource.getRepository(InvoiceRecord);
    const byId = await repo.findOneBy({ gatewayId: invoice.id });
    if (byId || !invoice.referrer) return byId;
    // Issue 13: an invoice no record holds is matched to its order's attempt by its referrer, at once (an earlier
    // attempt's late invoice included); duplicates are canceled or alerted there.
    if (this.lateInvoices) return this.lateInvoices.adopt(invoice, 'webhook');
    // Matched by referrer only while the checkout has not stored an invoice number: a record already tied to
    // another invoice must not take this one's status (a duplicate invoice at the service is dead-lettered).
    return repo.findOneBy({ referrer: invoice.referrer, gatewayId: IsNull() });
  }

  private async retryLater(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = Math.min(retryBaseDelayMs * 2 ** Math.max(0, entry.attempts - 1), retryMaxDelayMs);
    const next = new Date(Date.now() + delay);
    await this.finish(entry, { lastError: clip(reason, 2000), nextAttemptAt: next, lockedUntil: null });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  private async deadLetter(entry: WebhookInboxEntry, recordId: string | null, reason: string): Promise<void> {
    await this.finish(entry, { state: 'dead', lastError: clip(reason, 2000), processedAt: new Date() });
    this.logger.warn(`webhook inbox entry ${entry.id} dead-lettered: ${reason}`);
    this.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: recordId,
      message: `webhook delivery ${entry.id} (invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}) dead-lettered: ${reason}`,
    });
  }

  private alert(alert: InvoicePaymentsAlert): void {
    try {
      this.events.emit(InvoicePaymentsEvents.Alert, alert);
    } catch (err) {
      this.logger.error(`a listener of ${InvoicePaymentsEvents.Alert} threw: ${message(err)}`);
    }
  }

  /** Updates an entry this processor claimed; releases the claim. */
  private async finish(entry: WebhookInboxEntry, patch: Partial<WebhookInboxEntry>): Promise<void> {
    await runStatement(this.dataSource, (em) =>
      em
        .getRepository(WebhookInboxEntry)
        .update({ id: entry.id, state: 'pending' }, { lockedUntil: null, ...patch }),
    );
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function clip(value: string, max: number): string {
  return value.slice(0, max);
}
