import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { LRUCache } from 'lru-cache';
import { emitSafely, type InvoicePaymentsAlert, InvoicePaymentsEvents, messageOf } from '../core/events';
import type { ConfirmedStatus } from '../core/ports';
import { doublingDelayMs } from '../core/queue/backoff';
import { CallCeiling } from '../core/queue/call-ceiling';
import type { LeasedRows } from '../core/queue/leased-rows';
import { clip } from '../domain/text-bounds';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import type { StoredDelivery } from './delivery-intake';
import type { WebhookInboxEntry } from './webhook-inbox.entity';
import { WEBHOOK_INBOX_ROWS } from './webhook-inbox.rows';

/** Lookups of one invoice that may start back to back: its own life (paid, refunded moments apart) is not slowed. */
export const LOOKUP_BURST = 3;
/** Rows the intake stores for one invoice before its next lookup starts; later deliveries join the newest. */
export const MAX_ROWS_PER_LOOKUP = 50;
/** Invoices each map holds at most (least recently used dropped first), and how long a verdict holds (ms). */
const [MAX_REMEMBERED, VERDICT_MS] = [10_000, 3_600_000];
const ANSWERED = 'answered by a confirmation with the service made after it arrived';
/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
export const NO_RECORD_YET = 'no invoice record yet';

/** An entry a batch answered: how, and the record it was applied to. */
export type Closing = { entry: WebhookInboxEntry; outcome: string; recordId: string };
type Flight = { answer: Promise<Invoice | null>; sentAt: number | null };
type Placing = { join(entryId: string): Promise<boolean>; store(dueAt?: Date): Promise<StoredDelivery> };
const remembered = <V extends object | number>() => new LRUCache<string, V>({ max: MAX_REMEMBERED });

/**
 * A delivery's invoice as the service reports it now, one lookup per invoice at a time: after {@link LOOKUP_BURST},
 * one per invoice per `lookupWindowMs`, at most `lookupsPerSecond` in all. A delivery is a trigger, so a lookup that
 * starts after it arrived answers it, and waiting for the next one loses nothing.
 */
@Injectable()
export class DeliveryConfirmation {
  private readonly logger = new Logger(DeliveryConfirmation.name);
  private readonly buckets = remembered<{ tokens: number; at: number }>();
  private readonly perSecond: CallCeiling;
  private readonly inFlight = new Map<string, Flight>();
  private readonly deferred = remembered<number>();
  private readonly waiting = remembered<{ entryId: string; until: number }>();
  private readonly waitingWrites = new Map<string, Promise<StoredDelivery>>();
  /** Per invoice, rows stored since its last lookup, the newest still joinable. */
  private readonly unlooked = remembered<{ count: number; entryId: string | null }>();
  private readonly confirmedAt = remembered<{ at: number; recordId: string; status: ConfirmedStatus }>();
  /** What a lookup of an invoice without a record here found: unknown at the service, or known there only. */
  private readonly verdicts = remembered<{ verdict: 'unknown' | 'no-record'; until: number }>();
  private readonly unknownLookups: CallCeiling;
  private unreported = 0;
  private lastReport = 0;

  constructor(
    private readonly gateway: GatewayClient,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Inject(WEBHOOK_INBOX_ROWS) private readonly leased: LeasedRows<WebhookInboxEntry>,
    private readonly events: EventEmitter2,
  ) {
    this.perSecond = new CallCeiling(options.lookupsPerSecond, () => Date.now(), 1000);
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.unknownLookups = new CallCeiling(unknownLookupsPerWindow, () => Date.now(), unknownLookupWindowMs);
  }

  /** Whether an invoice no record holds may be looked up now; else the entry is written dead or waiting. */
  async mayLookUp(entry: WebhookInboxEntry, gatewayId: string): Promise<boolean> {
    const judged = this.verdicts.get(gatewayId);
    const verdict = judged && judged.until > Date.now() ? judged.verdict : null;
    if (verdict === 'unknown') {
      await this.deadLetterUnknown(entry, `the service does not know invoice ${gatewayId}`);
      return false;
    }
    if (verdict === 'no-record' || entry.lastError?.startsWith(NO_RECORD_YET)) {
      await this.waitForRecord(entry, gatewayId);
      return false;
    }
    if (this.unknownLookups.take()) return true;
    const lastError = `lookups of invoices without a record are limited; invoice ${gatewayId} waits`;
    const nextAttemptAt = new Date(Date.now() + Math.max(this.unknownLookups.msUntilNextWindow(), 1));
    await this.leased.finish(entry, { lastError, nextAttemptAt });
    return false;
  }

  /** The invoice now (one lookup for all `entries`), or `null` once their retry or dead letter is written. */
  async confirm(entries: WebhookInboxEntry[], gatewayId: string, local: boolean) {
    let problem: string;
    try {
      const newest = Math.max(...entries.map((entry) => entry.receivedAt.getTime()));
      const { invoice, startedAt } = await this.lookup(gatewayId, newest);
      if (invoice) {
        // Before any await, so a delivery of it admitted meanwhile waits for a record instead of asking again.
        if (!local) this.verdicts.set(gatewayId, { verdict: 'no-record', until: Date.now() + VERDICT_MS });
        return { invoice, startedAt };
      }
      problem = `the service does not know invoice ${gatewayId}`;
      if (!local) {
        this.verdicts.set(gatewayId, { verdict: 'unknown', until: Date.now() + VERDICT_MS });
        for (const entry of entries) await this.deadLetterUnknown(entry, problem);
        return null;
      }
    } catch (err) {
      problem = `could not confirm invoice ${gatewayId} with the service: ${messageOf(err)}`;
    }
    for (const entry of entries) {
      // A lookup only put off is no failure: the entry is due at its turn.
      const until = this.deferredUntil(gatewayId);
      if (until === null) await this.retryWithin(entry, problem, (waited) => `${problem} (for ${waited} ms)`);
      else {
        await this.leased.finish(entry, { lastError: problem.slice(0, 2000), nextAttemptAt: until });
        this.waiting.set(gatewayId, { entryId: entry.id, until: until.getTime() });
      }
    }
    return null;
  }

  /** Dead-letters an entry; `alert` false when the caller raises one alert for many (unknown invoices). */
  async deadLetter(entry: WebhookInboxEntry, reason: string, alert = true): Promise<void> {
    const lastError = clip(reason, 2000);
    await this.leased.finish(entry, { state: 'dead', lastError, processedAt: new Date() });
    if (!alert) return;
    this.logger.warn(`webhook inbox entry ${entry.id} dead-lettered: ${reason}`);
    const what = `invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}`;
    this.alert(`webhook delivery ${entry.id} (${what}) dead-lettered: ${reason}`);
  }

  /** Later deliveries of the invoice wait for a record too, without asking the service again, within the window. */
  waitForRecord(entry: WebhookInboxEntry, gatewayId: string): Promise<void> {
    const dead = (waited: number) => `no invoice record for invoice ${gatewayId} after ${waited} ms`;
    return this.retryWithin(entry, `${NO_RECORD_YET} for invoice ${gatewayId}`, dead);
  }

  /** The lookup that answered deliveries of `gatewayId` received up to `receivedBefore`, remembered in this process. */
  answerOf(gatewayId: string, receivedBefore: Date): { recordId: string; status: ConfirmedStatus } | null {
    const confirmed = this.confirmedAt.get(gatewayId);
    return confirmed !== undefined && receivedBefore.getTime() < confirmed.at ? confirmed : null;
  }

  /** Whether an applied lookup that started after the last of `entries` arrived answers them (then closed so). */
  answered(gatewayId: string, entries: WebhookInboxEntry[], closings: Closing[]): boolean {
    const recordId = this.answerOf(gatewayId, entries[entries.length - 1].receivedAt)?.recordId;
    if (recordId === undefined) return false;
    this.forget(gatewayId);
    for (const entry of entries) closings.push({ entry, outcome: ANSWERED, recordId });
    return true;
  }

  applied(gatewayId: string, startedAt: Date, recordId: string, invoice: Invoice): void {
    if ((this.confirmedAt.get(gatewayId)?.at ?? -Infinity) >= startedAt.getTime()) return;
    const { paidCents, grossCents } = invoice.amounts;
    const status = { code: invoice.status.code, paidCents, grossCents };
    this.confirmedAt.set(gatewayId, { at: startedAt.getTime(), recordId, status });
  }

  forget(gatewayId: string): void {
    this.verdicts.delete(gatewayId);
  }

  /** When the invoice's lookup, spent, was put off till; `null` when none is. */
  deferredUntil(gatewayId: string): Date | null {
    const until = this.deferred.get(gatewayId);
    return until !== undefined && until > Date.now() ? new Date(until) : null;
  }

  /**
   * Joins a delivery of `gatewayId` to an entry waiting for a lookup not started yet (which answers it too), else
   * stores it, due at the next lookup if none may start now. An entry that will wait is written before the invoice's
   * next delivery is placed, so a flood naming one invoice adds a few rows a lookup window.
   */
  async place(gatewayId: string, how: Placing): Promise<StoredDelivery> {
    await this.waitingWrites.get(gatewayId)?.catch(() => undefined);
    const id = this.waitingEntry(gatewayId);
    if (id !== null) {
      if (await how.join(id)) return { id, duplicate: true, state: 'pending', problem: null, gatewayId };
      if (this.waiting.get(gatewayId)?.entryId === id) this.waiting.delete(gatewayId);
      const unlooked = this.unlooked.get(gatewayId);
      if (unlooked?.entryId === id) unlooked.entryId = null;
    }
    const dueAt = this.nextLookupAt(gatewayId) ?? undefined;
    const write = how.store(dueAt).then((stored) => {
      if (stored.duplicate || stored.state !== 'pending') return stored;
      const count = (this.unlooked.peek(gatewayId)?.count ?? 0) + 1;
      if (dueAt) this.waiting.set(gatewayId, { entryId: stored.id, until: dueAt.getTime() });
      else this.unlooked.set(gatewayId, { count, entryId: stored.id });
      return stored;
    });
    if (!dueAt) return write;
    this.waitingWrites.set(gatewayId, write);
    return write.finally(() => {
      if (this.waitingWrites.get(gatewayId) === write) this.waitingWrites.delete(gatewayId);
    });
  }

  /** When the next lookup of `gatewayId` may start if not now, else `null`. */
  nextLookupAt(gatewayId: string): Date | null {
    const wait = this.waitOf(this.tokensOf(gatewayId, Date.now()));
    return wait > 0 ? new Date(Date.now() + wait) : null;
  }

  /**
   * The entry a delivery of `gatewayId` may join instead of being stored: the one put off until the next lookup, or
   * past {@link MAX_ROWS_PER_LOOKUP} rows since the last lookup started, the newest; else `null`.
   */
  waitingEntry(gatewayId: string): string | null {
    const waiting = this.waiting.get(gatewayId);
    if (waiting && waiting.until + this.options.lookupWindowMs > Date.now()) return waiting.entryId;
    if (waiting) this.waiting.delete(gatewayId);
    const unlooked = this.unlooked.get(gatewayId);
    return unlooked && unlooked.count >= MAX_ROWS_PER_LOOKUP ? unlooked.entryId : null;
  }

  /**
   * One lookup per invoice at a time, joined only if its request left after `notBefore` (the newest delivery's
   * arrival; an older answer may predate it). An invoice whose lookups are spent rejects ({@link deferredUntil}).
   */
  private async lookup(gatewayId: string, notBefore: number) {
    let flight = this.inFlight.get(gatewayId);
    while (flight && flight.sentAt !== null && flight.sentAt < notBefore) {
      await flight.answer.catch(() => undefined);
      flight = this.inFlight.get(gatewayId);
    }
    if (!flight) {
      const { waitMs, scope } = this.take(gatewayId);
      if (waitMs > 0 && scope === 'invoice') {
        const retryAt = Date.now() + waitMs;
        this.deferred.set(gatewayId, retryAt);
        const why = `lookups of invoice ${gatewayId} are paced (webhooks.lookupWindowMs): looked up again at`;
        throw new Error(`${why} ${new Date(retryAt).toISOString()}`);
      }
      this.deferred.delete(gatewayId);
      this.unlooked.delete(gatewayId);
      const started: Flight = { answer: null!, sentAt: null };
      started.answer = (async () => {
        // This second's lookups are spent: the next second's.
        for (let wait = waitMs; wait > 0; { waitMs: wait } = this.take(gatewayId))
          await new Promise((resolve) => setTimeout(resolve, wait));
        started.sentAt = Date.now();
        return this.gateway.findInvoiceById(gatewayId);
      })().finally(() => this.inFlight.delete(gatewayId));
      this.inFlight.set(gatewayId, (flight = started));
    }
    return { invoice: await flight.answer, startedAt: new Date(flight.sentAt ?? Date.now()) };
  }

  /** Takes a lookup now (`waitMs` 0), or says in how many ms one may start: its `invoice`'s bucket, or `all`. */
  private take(gatewayId: string): { waitMs: number; scope: 'invoice' | 'all' } {
    const t = Date.now();
    const tokens = this.tokensOf(gatewayId, t);
    if (tokens < 1) return { waitMs: this.waitOf(tokens), scope: 'invoice' };
    if (!this.perSecond.take()) return { waitMs: this.perSecond.msUntilNextWindow(), scope: 'all' };
    this.buckets.set(gatewayId, { tokens: tokens - 1, at: t });
    return { waitMs: 0, scope: 'invoice' };
  }

  private tokensOf(gatewayId: string, t: number): number {
    const bucket = this.buckets.get(gatewayId) ?? { tokens: LOOKUP_BURST, at: t };
    return Math.min(LOOKUP_BURST, bucket.tokens + (t - bucket.at) / this.options.lookupWindowMs);
  }

  private waitOf(tokens: number): number {
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) * this.options.lookupWindowMs));
  }

  /** Retried with backoff for `unknownInvoiceWindowMs` after it arrived, then dead. */
  private async retryWithin(entry: WebhookInboxEntry, problem: string, dead: (ms: number) => string) {
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited < this.options.inbox.unknownInvoiceWindowMs) return this.retryLater(entry, problem);
    await this.deadLetter(entry, dead(waited));
  }

  /** Due again after the inbox's doubling backoff of its attempts. */
  async retryLater(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs);
    const nextAttemptAt = new Date(Date.now() + delay);
    await this.leased.finish(entry, { lastError: clip(reason, 2000), nextAttemptAt });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  private alert(message: string): void {
    const kind = 'webhook_dead_letter';
    const alert = { kind, orderId: null, invoiceRecordId: null, message } satisfies InvoicePaymentsAlert;
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.Alert, alert);
  }

  /** Dead-letters a delivery of an invoice the service does not know: one alert a window, not one per delivery. */
  private async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.deadLetter(entry, reason, false);
    const count = ++this.unreported;
    if (Date.now() - this.lastReport < this.options.inbox.unknownLookupWindowMs) return;
    this.lastReport = Date.now();
    this.unreported = 0;
    const unknown = `${count} webhook deliveries named invoices the service does not know`;
    this.logger.warn(`${unknown} (last: ${reason})`);
    const named = `${count} webhook delivery(ies) named invoices neither this store nor the service knows`;
    this.alert(`${named} (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`);
  }
}
