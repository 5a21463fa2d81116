import { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import { emitSafely, InvoicePaymentsEvents, messageOf as message } from '../core/events';
import type { ConfirmedStatus } from '../core/ports';
import { doublingDelayMs } from '../core/queue/backoff';
import type { LeasedRows } from '../core/queue/leased-rows';
import { clip } from '../core/text-bounds';
import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { CallCeiling } from '../reconciliation/check-schedule';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

/** Lookups of one invoice that may start back to back: its own life (paid, refunded moments apart) is not slowed. */
export const LOOKUP_BURST = 3;
/** Rows the intake stores for one invoice before its next lookup starts; later deliveries join the newest. */
export const MAX_ROWS_PER_LOOKUP = 50;
/** Invoices remembered at most at once in each map (oldest forgotten first), and a verdict for how long. */
const [MAX_REMEMBERED, VERDICT_MS] = [10_000, 3_600_000];
const ANSWERED = 'answered by a confirmation with the service made after it arrived';
/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
export const NO_RECORD_YET = 'no invoice record yet';

/** An entry a batch answered: how, and the record it was applied to. */
export type Closing = { entry: WebhookInboxEntry; outcome: string; recordId: string };
type Flight = { answer: Promise<Invoice | null>; sentAt: number | null };

/** Sets `key` in a map of at most {@link MAX_REMEMBERED} keys, the oldest forgotten first. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/**
 * A delivery's invoice as the service reports it now, one lookup per invoice at a time: after {@link LOOKUP_BURST},
 * one per invoice per `lookupWindowMs`, at most `lookupsPerSecond` in all. A delivery is a trigger, so a lookup that
 * starts after it arrived answers it, and waiting for the next one loses nothing.
 */
export class DeliveryConfirmation {
  private readonly logger = new Logger(DeliveryConfirmation.name);
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perSecond: CallCeiling;
  private readonly inFlight = new Map<string, Flight>();
  private readonly deferred = new Map<string, number>();
  private readonly waiting = new Map<string, { entryId: string; until: number }>();
  /** Per invoice, rows stored since its last lookup, the newest still joinable. */
  private readonly unlooked = new Map<string, { count: number; entryId: string | null }>();
  private readonly confirmedAt = new Map<string, { at: number; recordId: string; status: ConfirmedStatus }>();
  /** What a lookup of an invoice without a record here found: unknown at the service, or known there only. */
  private readonly verdicts = new Map<string, { verdict: 'unknown' | 'no-record'; until: number }>();
  private readonly unknownLookups: CallCeiling;
  private unreported = 0;
  private lastReport = 0;

  constructor(
    private readonly gateway: GatewayClient,
    private readonly options: ResolvedWebhooksOptions,
    private readonly leased: LeasedRows<WebhookInboxEntry>,
    private readonly events: EventEmitter2,
  ) {
    this.perSecond = new CallCeiling(options.lookupsPerSecond, () => Date.now(), 1000);
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.unknownLookups = new CallCeiling(unknownLookupsPerWindow, () => Date.now(), unknownLookupWindowMs);
  }

  /** Whether an invoice no record holds may be looked up now; else the entry is dead or waits. */
  async admit(entry: WebhookInboxEntry, gatewayId: string): Promise<boolean> {
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
    await this.leased.finish(entry, {
      lastError: `lookups of invoices without a record are limited; invoice ${gatewayId} waits`,
      nextAttemptAt: new Date(Date.now() + Math.max(this.unknownLookups.msUntilNextWindow(), 1)),
    });
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
        if (!local)
          remember(this.verdicts, gatewayId, { verdict: 'no-record', until: Date.now() + VERDICT_MS });
        return { invoice, startedAt };
      }
      problem = `the service does not know invoice ${gatewayId}`;
      if (!local) {
        remember(this.verdicts, gatewayId, { verdict: 'unknown', until: Date.now() + VERDICT_MS });
        for (const entry of entries) await this.deadLetterUnknown(entry, problem);
        return null;
      }
    } catch (err) {
      problem = `could not confirm invoice ${gatewayId} with the service: ${message(err)}`;
    }
    for (const entry of entries) {
      // A lookup only put off is no failure: the entry is due at its turn.
      const until = this.deferredUntil(gatewayId);
      if (until === null) await this.retryWithin(entry, problem, (waited) => `${problem} (for ${waited} ms)`);
      else {
        await this.leased.finish(entry, { lastError: problem.slice(0, 2000), nextAttemptAt: until });
        this.waits(gatewayId, entry.id, until);
      }
    }
    return null;
  }

  /** Dead-letters an entry; `alert` false when the caller raises one alert for many (unknown invoices). */
  async deadLetter(entry: WebhookInboxEntry, reason: string, alert = true): Promise<void> {
    const [lastError, processedAt] = [clip(reason, 2000), new Date()];
    await this.leased.finish(entry, { state: 'dead', lastError, processedAt });
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
    const previous = this.confirmedAt.get(gatewayId);
    if (previous !== undefined && previous.at >= startedAt.getTime()) return;
    const { paidCents, grossCents } = invoice.amounts;
    const status = { code: invoice.status.code, paidCents, grossCents };
    remember(this.confirmedAt, gatewayId, { at: startedAt.getTime(), recordId, status });
  }

  forget(gatewayId: string): void {
    this.verdicts.delete(gatewayId);
  }

  /** When the invoice's lookup, spent, was put off till; `null` when none is. */
  deferredUntil(gatewayId: string): Date | null {
    const until = this.deferred.get(gatewayId);
    return until !== undefined && until > Date.now() ? new Date(until) : null;
  }

  /** When the next lookup of `gatewayId` may start if not now (the intake stores a delivery due then), else `null`. */
  nextLookupAt(gatewayId: string): Date | null {
    const wait = this.waitOf(this.tokensOf(gatewayId, Date.now()));
    return wait > 0 ? new Date(Date.now() + wait) : null;
  }

  /** Entry `entryId` waits for the invoice's next lookup, due `until`. */
  waits(gatewayId: string, entryId: string, until: Date): void {
    remember(this.waiting, gatewayId, { entryId, until: until.getTime() });
  }

  stored(gatewayId: string, entryId: string): void {
    const count = (this.unlooked.get(gatewayId)?.count ?? 0) + 1;
    remember(this.unlooked, gatewayId, { count, entryId });
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

  /** Entry `entryId` was claimed or finished: no delivery joins it. */
  forgetWaiting(gatewayId: string, entryId: string): void {
    if (this.waiting.get(gatewayId)?.entryId === entryId) this.waiting.delete(gatewayId);
    const unlooked = this.unlooked.get(gatewayId);
    if (unlooked?.entryId === entryId) unlooked.entryId = null;
  }

  /**
   * One lookup per invoice at a time, joined only if its request left after `notBefore` (the newest delivery's
   * arrival): an older answer may predate that delivery. An invoice whose lookups are spent rejects (see
   * {@link deferredUntil}).
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
        remember(this.deferred, gatewayId, retryAt);
        const at = new Date(retryAt).toISOString();
        const why = `lookups of invoice ${gatewayId} are paced (webhooks.lookupWindowMs): looked up again at ${at}`;
        throw new Error(why);
      }
      this.deferred.delete(gatewayId);
      this.unlooked.delete(gatewayId);
      const started: Flight = { answer: null!, sentAt: null };
      started.answer = (async () => {
        // This second's lookups are spent: the next second's.
        for (let wait = waitMs; wait > 0; { waitMs: wait } = this.take(gatewayId)) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        started.sentAt = Date.now();
        return this.gateway.findInvoiceById(gatewayId);
      })().finally(() => this.inFlight.delete(gatewayId));
      this.inFlight.set(gatewayId, (flight = started));
    }
    const invoice = await flight.answer;
    return { invoice, startedAt: new Date(flight.sentAt ?? Date.now()) };
  }

  /** Takes a lookup now (`waitMs` 0), or says in how many ms one may start: its `invoice`'s bucket, or `all`. */
  private take(gatewayId: string): { waitMs: number; scope: 'invoice' | 'all' } {
    const t = Date.now();
    const tokens = this.tokensOf(gatewayId, t);
    if (tokens < 1) return { waitMs: this.waitOf(tokens), scope: 'invoice' };
    if (!this.perSecond.take()) return { waitMs: this.perSecond.msUntilNextWindow(), scope: 'all' };
    remember(this.buckets, gatewayId, { tokens: tokens - 1, at: t });
    return { waitMs: 0, scope: 'invoice' };
  }

  private tokensOf(gatewayId: string, t: number): number {
    const bucket = this.buckets.get(gatewayId);
    const { lookupWindowMs } = this.options;
    return bucket ? Math.min(LOOKUP_BURST, bucket.tokens + (t - bucket.at) / lookupWindowMs) : LOOKUP_BURST;
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
    const alert = { kind: 'webhook_dead_letter', orderId: null, invoiceRecordId: null, message };
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.Alert, alert);
  }

  /** Dead-letters a delivery of an invoice the service does not know: one alert a window, not one per delivery. */
  private async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.deadLetter(entry, reason, false);
    this.unreported++;
    const t = Date.now();
    if (t - this.lastReport < this.options.inbox.unknownLookupWindowMs) return;
    this.lastReport = t;
    const count = this.unreported;
    this.unreported = 0;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    const last = `last: delivery ${entry.id}: ${reason}`;
    const named = `${count} webhook delivery(ies) named invoices neither this store nor the service knows`;
    this.alert(`${named} (${last}); a valid webhook token may have leaked`);
  }
}
