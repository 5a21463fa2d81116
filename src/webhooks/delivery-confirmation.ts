import { Logger } from '@nestjs/common';
import type { ConfirmedStatus } from '../core/ports';
import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { CallCeiling } from '../reconciliation/call-ceiling';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { WebhookInboxEntry } from './webhook-inbox.entity';
import { message, type WebhookInboxService } from './webhook-inbox.service';

/** Lookups of one invoice that may start back to back: its own life (paid, refunded moments apart) is not slowed. */
export const LOOKUP_BURST = 3;
/** Rows the intake stores for one invoice before its next lookup starts; later deliveries join the newest. */
export const MAX_ROWS_PER_LOOKUP = 50;
/** Invoices remembered at most at once in each map (oldest forgotten first), and a verdict for how long. */
const MAX_REMEMBERED = 10_000;
const VERDICT_MS = 3_600_000;
/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
export const NO_RECORD_YET = 'no invoice record yet';

/**
 * After {@link LOOKUP_BURST}, one lookup per invoice per `windowMs`, and at most `perSecond` in all: a delivery is a
 * trigger, so a lookup that starts after it arrived answers it, and waiting for the next one loses nothing.
 */
export class LookupPace {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly ceiling: CallCeiling;

  constructor(
    private readonly windowMs: number,
    perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.ceiling = new CallCeiling(perSecond, now, 1000);
  }

  /** In how many ms a lookup of `gatewayId` may start as far as its own pace goes; takes nothing. */
  peek(gatewayId: string): number {
    return this.waitOf(this.tokensOf(gatewayId, this.now()));
  }

  /** Takes a lookup now (`waitMs` 0), or says in how many ms one may start: its `invoice`'s bucket, or `all`. */
  take(gatewayId: string): { waitMs: number; scope: 'invoice' | 'all' } {
    const t = this.now();
    const tokens = this.tokensOf(gatewayId, t);
    if (tokens < 1) return { waitMs: this.waitOf(tokens), scope: 'invoice' };
    if (!this.ceiling.take()) return { waitMs: this.ceiling.msUntilNextWindow(), scope: 'all' };
    remember(this.buckets, gatewayId, { tokens: tokens - 1, at: t });
    return { waitMs: 0, scope: 'invoice' };
  }

  private tokensOf(gatewayId: string, t: number): number {
    const bucket = this.buckets.get(gatewayId);
    return bucket ? Math.min(LOOKUP_BURST, bucket.tokens + (t - bucket.at) / this.windowMs) : LOOKUP_BURST;
  }

  private waitOf(tokens: number): number {
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) * this.windowMs));
  }
}

/** Lookups one at a time per invoice as the {@link LookupPace} allows, and the entry waiting for the next one. */
export class PacedLookups {
  private readonly pace: LookupPace;
  private readonly inFlight = new Map<string, Promise<Invoice | null>>();
  private readonly deferred = new Map<string, number>();
  private readonly waiting = new Map<string, { entryId: string; until: number }>();
  /** Per invoice, an entry due at its next lookup; rows stored since its last one, the newest still joinable. */
  private readonly unlooked = new Map<string, { count: number; entryId: string | null }>();

  constructor(
    private readonly find: (gatewayId: string) => Promise<Invoice | null>,
    private readonly windowMs: number,
    perSecond: number,
  ) {
    this.pace = new LookupPace(windowMs, perSecond);
  }

  /**
   * The invoice as the service reports it, one lookup per invoice at a time: an invoice whose lookups are spent
   * rejects (see {@link deferredUntil}); when this second's are spent, the lookup waits for the next second.
   */
  lookup(gatewayId: string): Promise<Invoice | null> {
    let pending = this.inFlight.get(gatewayId);
    if (!pending) {
      const first = this.pace.take(gatewayId);
      if (first.waitMs > 0 && first.scope === 'invoice') {
        const retryAt = Date.now() + first.waitMs;
        remember(this.deferred, gatewayId, retryAt);
        const at = new Date(retryAt).toISOString();
        const why = `lookups of invoice ${gatewayId} are paced (webhooks.lookupWindowMs): looked up again at ${at}`;
        return Promise.reject(new Error(why));
      }
      this.deferred.delete(gatewayId);
      this.unlooked.delete(gatewayId);
      pending = this.afterCeiling(gatewayId, first.waitMs)
        .then(() => this.find(gatewayId))
        .finally(() => this.inFlight.delete(gatewayId));
      this.inFlight.set(gatewayId, pending);
    }
    return pending;
  }

  deferredUntil(gatewayId: string): Date | null {
    const until = this.deferred.get(gatewayId);
    return until !== undefined && until > Date.now() ? new Date(until) : null;
  }

  /** When the next lookup of `gatewayId` may start if not now (the intake stores a delivery due then), else `null`. */
  nextLookupAt(gatewayId: string): Date | null {
    const wait = this.pace.peek(gatewayId);
    return wait > 0 ? new Date(Date.now() + wait) : null;
  }

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
    if (waiting && waiting.until + this.windowMs > Date.now()) return waiting.entryId;
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

  private async afterCeiling(gatewayId: string, waitMs: number): Promise<void> {
    while (waitMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      ({ waitMs } = this.pace.take(gatewayId));
    }
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/** What a lookup of an invoice without a record here found: unknown at the service, or known there only. */
type Verdict = 'unknown' | 'no-record';

/** A delivery's invoice as the service reports it now; one without a record here costs a lookup at most. */
export class DeliveryConfirmation {
  private readonly logger = new Logger(DeliveryConfirmation.name);
  readonly paced: PacedLookups;
  private readonly confirmedAt = new Map<string, { at: number; recordId: string; status: ConfirmedStatus }>();
  private readonly verdicts = new Map<string, { verdict: Verdict; until: number }>();
  private readonly unknownLookups: CallCeiling;
  private unreported = 0;
  private lastReport = 0;

  constructor(
    gateway: GatewayClient,
    private readonly options: ResolvedWebhooksOptions,
    private readonly rows: WebhookInboxService,
  ) {
    const find = (gatewayId: string) => gateway.findInvoiceById(gatewayId);
    this.paced = new PacedLookups(find, options.lookupWindowMs, options.lookupsPerSecond);
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.unknownLookups = new CallCeiling(unknownLookupsPerWindow, Date.now, unknownLookupWindowMs);
  }

  /** Whether an invoice no record holds by number may be looked up now; else the entry is dead or waits. */
  async admit(entry: WebhookInboxEntry, gatewayId: string): Promise<boolean> {
    const verdict = this.verdictOf(gatewayId);
    if (verdict === 'unknown') {
      await this.deadLetterUnknown(entry, `the service does not know invoice ${gatewayId}`);
      return false;
    }
    if (verdict === 'no-record' || entry.lastError?.startsWith(NO_RECORD_YET)) {
      await this.waitForRecord(entry, gatewayId);
      return false;
    }
    if (this.unknownLookups.take()) return true;
    await this.rows.finish(entry, {
      lastError: `lookups of invoices without a record are limited; invoice ${gatewayId} waits`,
      nextAttemptAt: new Date(Date.now() + Math.max(this.unknownLookups.msUntilNextWindow(), 1)),
    });
    return false;
  }

  /** The invoice now (one lookup for all `entries`), or `null` once their retry or dead letter is written. */
  async confirm(
    entries: WebhookInboxEntry[],
    gatewayId: string,
    local: boolean,
  ): Promise<{ invoice: Invoice; startedAt: Date } | null> {
    const startedAt = new Date();
    let problem: string;
    try {
      const invoice = await this.paced.lookup(gatewayId);
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
    for (const entry of entries) await this.notConfirmed(entry, problem);
    return null;
  }

  /** Retried with backoff for `unknownInvoiceWindowMs`, then dead; a lookup only put off is no failure. */
  async notConfirmed(entry: WebhookInboxEntry, problem: string): Promise<void> {
    const until = entry.gatewayId === null ? null : this.paced.deferredUntil(entry.gatewayId);
    if (until !== null) {
      await this.rows.finish(entry, { lastError: problem.slice(0, 2000), nextAttemptAt: until });
      this.paced.waits(entry.gatewayId as string, entry.id, until);
      return;
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
      await this.rows.deadLetter(entry, `${problem} (for ${waited} ms)`);
    } else {
      await this.rows.retryLater(entry, problem);
    }
  }

  /** Later deliveries of the invoice wait for a record too, without asking the service again, within the window. */
  async waitForRecord(entry: WebhookInboxEntry, gatewayId: string): Promise<void> {
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited < this.options.inbox.unknownInvoiceWindowMs) {
      return this.rows.retryLater(entry, `${NO_RECORD_YET} for invoice ${gatewayId}`);
    }
    await this.rows.deadLetter(entry, `no invoice record for invoice ${gatewayId} after ${waited} ms`);
  }

  /** The lookup that answered deliveries of `gatewayId` received up to `receivedBefore`, remembered in this process. */
  answerOf(gatewayId: string, receivedBefore: Date): { recordId: string; status: ConfirmedStatus } | null {
    const confirmed = this.confirmedAt.get(gatewayId);
    return confirmed !== undefined && receivedBefore.getTime() < confirmed.at ? confirmed : null;
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

  private verdictOf(gatewayId: string): Verdict | null {
    const v = this.verdicts.get(gatewayId);
    return v && v.until > Date.now() ? v.verdict : null;
  }

  /** Dead-letters a delivery of an invoice the service does not know: one alert a window, not one per delivery. */
  private async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.rows.deadLetter(entry, reason, false);
    this.unreported++;
    const t = Date.now();
    if (t - this.lastReport < this.options.inbox.unknownLookupWindowMs) return;
    this.lastReport = t;
    const count = this.unreported;
    this.unreported = 0;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    this.rows.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: null,
      message: `${count} webhook delivery(ies) named invoices neither this store nor the service knows (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`,
    });
  }
}
