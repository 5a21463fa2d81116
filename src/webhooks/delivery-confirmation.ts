import { DataSource } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { InboxRows, message } from './inbox-rows';
import { LookupDeferred, LookupPace } from './lookup-pace';
import type { ResolvedWebhooksOptions } from './types';
import { WebhookInboxEntry } from './webhook-inbox.entity';

/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
export const NO_RECORD_YET = 'no invoice record yet';

/**
 * Why the service's invoice must not be applied to the record found for it: the service names another referrer
 * than the one the checkout sent (a number reused, or another store's invoice), or `null`.
 */
export function referrerMismatch(invoice: Invoice, record: InvoiceRecord): string | null {
  if (invoice.referrer === null || invoice.referrer === record.referrer) return null;
  return `invoice ${invoice.id} has referrer ${invoice.referrer} at the service, not ${record.referrer}: not applied to record ${record.id}`;
}

/** Invoices whose latest applied confirmation is remembered (a number and a time each). */
const MAX_CONFIRMED_INVOICES = 10_000;

/**
 * A delivery's invoice as the service reports it now: the body is a trigger, the service the truth. An invoice is
 * looked up at most once per `webhooks.lookupWindowMs` and at most `webhooks.lookupsPerSecond` lookups start a
 * second ({@link LookupPace}): deliveries that come meanwhile wait for the next lookup, which answers them all.
 * Deliveries for invoices this store does not know cost about one lookup per invoice (a budget a window), one
 * lookup serves every delivery of an invoice waiting at the time, and nothing is held open while the service is asked.
 */
export class DeliveryConfirmation {
  private readonly lookups = new Map<string, Promise<Invoice | null>>();
  private readonly pace: LookupPace;
  /** Invoices whose lookup was put off, and until when (see {@link notConfirmed}). */
  private readonly deferred = new Map<string, Date>();
  /** Per invoice, an entry put off until a lookup may start, and when that is (see {@link waitingEntry}). */
  private readonly waiting = new Map<string, { entryId: string; until: number }>();
  /** When the latest lookup that was then applied started, per invoice (bounded; oldest forgotten first). */
  private readonly confirmedAt = new Map<string, { at: number; recordId: string }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly gateway: GatewayClient,
    private readonly options: ResolvedWebhooksOptions,
    private readonly rows: InboxRows,
  ) {
    this.pace = new LookupPace(options.lookupWindowMs, options.lookupsPerSecond);
  }

  /**
   * The invoice as the service reports it now (profile `lookup.byId`), or `null` after scheduling a retry: the
   * service unreachable, or not (yet) knowing the invoice, is retried with backoff for `unknownInvoiceWindowMs`,
   * then dead-lettered with an alert. Nothing is held open while the service is asked.
   */
  async confirm(
    entry: WebhookInboxEntry,
    gatewayId: string,
    local: boolean,
  ): Promise<{ invoice: Invoice; startedAt: Date } | null> {
    const startedAt = new Date();
    let problem: string;
    try {
      const invoice = await this.lookupShared(gatewayId);
      if (invoice) {
        // Known there, no record here when admitted: remembered before anything else is awaited, so a delivery of
        // it admitted meanwhile waits for a record instead of asking again (admit looks for a record first).
        if (!local) this.rows.unknown.remember(gatewayId, 'no-record');
        return { invoice, startedAt };
      }
      problem = `the service does not know invoice ${gatewayId}`;
      if (!local) {
        // Neither this store nor the service knows it: nothing will ever apply. Dead at once, remembered.
        this.rows.unknown.remember(gatewayId, 'unknown');
        await this.rows.deadLetterUnknown(entry, problem);
        return null;
      }
    } catch (err) {
      problem = `could not confirm invoice ${gatewayId} with the service: ${message(err)}`;
    }
    await this.notConfirmed(entry, problem);
    return null;
  }

  /**
   * An entry whose invoice could not be confirmed (the service unreachable, or not knowing an invoice this store
   * has): retried with backoff for `unknownInvoiceWindowMs`, then dead-lettered with an alert. One whose lookup was
   * only put off ({@link LookupPace}) is taken again when the lookup may start, without counting as a failure.
   */
  async notConfirmed(entry: WebhookInboxEntry, problem: string): Promise<void> {
    const until = entry.gatewayId === null ? undefined : this.deferred.get(entry.gatewayId);
    if (until !== undefined && until.getTime() > Date.now()) {
      await this.rows.finish(entry, { lastError: problem.slice(0, 2000), nextAttemptAt: until });
      this.waits(entry.gatewayId as string, entry.id, until);
      return;
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
      await this.rows.deadLetter(entry, null, `${problem} (for ${waited} ms)`);
    } else {
      await this.rows.retryLater(entry, problem);
    }
  }

  /**
   * Whether a delivery naming `gatewayId` may be confirmed now: `true` the invoice has a record here, `false` it has
   * none but may be looked up (within the window's budget of such lookups), `null` when the entry was dealt with
   * here: dead-lettered (the service said it does not know it), or postponed without asking the service (budget
   * spent, or the service already confirmed it and no record exists yet). So deliveries for invoices this store
   * does not know cost about one lookup per invoice, whatever their number.
   */
  async admit(entry: WebhookInboxEntry, gatewayId: string): Promise<boolean | null> {
    const repo = this.dataSource.getRepository(InvoiceRecord);
    const where = [{ gatewayId }, ...(entry.referrer ? [{ referrer: entry.referrer }] : [])];
    if (await repo.exists({ where })) {
      this.rows.unknown.forget(gatewayId);
      return true;
    }
    const verdict = this.rows.unknown.verdictOf(gatewayId);
    if (verdict === 'unknown') {
      await this.rows.deadLetterUnknown(entry, `the service does not know invoice ${gatewayId}`);
      return null;
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (verdict === 'no-record' || entry.lastError?.startsWith(NO_RECORD_YET)) {
      if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
        await this.rows.deadLetter(
          entry,
          null,
          `no invoice record for invoice ${gatewayId} after ${waited} ms`,
        );
      } else {
        await this.rows.retryLater(entry, `${NO_RECORD_YET} for invoice ${gatewayId}`);
      }
      return null;
    }
    const wait = this.rows.unknown.spendLookup();
    if (wait !== null) {
      await this.rows.finish(entry, {
        lastError: `lookups of invoices without a record are limited; invoice ${gatewayId} waits`,
        nextAttemptAt: new Date(Date.now() + Math.max(wait, 1)),
      });
      return null;
    }
    return false;
  }

  /**
   * One lookup per invoice at a time, whatever number of deliveries wait for it, and no more often than the
   * {@link LookupPace} allows: an invoice whose lookups are spent rejects with {@link LookupDeferred} (the caller
   * hands its entries to {@link notConfirmed}, which takes them again when a lookup may start); when this second's
   * lookups are spent, the lookup waits here for the next second (the entries stay claimed, nothing is written).
   */
  lookupShared(gatewayId: string): Promise<Invoice | null> {
    let pending = this.lookups.get(gatewayId);
    if (!pending) {
      const first = this.pace.take(gatewayId);
      if (first.waitMs > 0 && first.scope === 'invoice') {
        const retryAt = new Date(Date.now() + first.waitMs);
        this.deferred.set(gatewayId, retryAt);
        if (this.deferred.size > MAX_CONFIRMED_INVOICES) this.forgetPastDeferrals();
        return Promise.reject(new LookupDeferred(gatewayId, retryAt));
      }
      this.deferred.delete(gatewayId);
      pending = this.afterCeiling(gatewayId, first.waitMs)
        .then(() => this.gateway.findInvoiceById(gatewayId))
        .finally(() => this.lookups.delete(gatewayId));
      this.lookups.set(gatewayId, pending);
    }
    return pending;
  }

  /** Resolves once a lookup of `gatewayId` is taken from the pace, waiting out spent seconds (`waitMs` first). */
  private async afterCeiling(gatewayId: string, waitMs: number): Promise<void> {
    while (waitMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      ({ waitMs } = this.pace.take(gatewayId));
    }
  }

  /**
   * An inbox entry of `gatewayId` that waits for a lookup starting no earlier than `after` (it was put off until
   * then), or `null`: a delivery of the invoice arriving by `after` is answered by that lookup, so the intake need
   * not store it. Per process; the entry is in the database, so a crash loses nothing.
   */
  waitingEntry(gatewayId: string, after = Date.now()): string | null {
    const waiting = this.waiting.get(gatewayId);
    if (!waiting) return null;
    if (waiting.until > after) return waiting.entryId;
    this.waiting.delete(gatewayId);
    return null;
  }

  /**
   * When the next lookup of `gatewayId` may start, when that is later than now (its lookups are spent), else
   * `null`: the intake stores a delivery due then, so it waits without being claimed, and later ones join it.
   */
  nextLookupAt(gatewayId: string): Date | null {
    const wait = this.pace.peek(gatewayId);
    return wait > 0 ? new Date(Date.now() + wait) : null;
  }

  /** Remembers that entry `entryId` of `gatewayId` is due at `until` (see {@link waitingEntry}). */
  waits(gatewayId: string, entryId: string, until: Date): void {
    this.remember(this.waiting, gatewayId, { entryId, until: until.getTime() });
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    if (map.size >= MAX_CONFIRMED_INVOICES) map.delete(map.keys().next().value as string);
    map.set(key, value);
  }

  private forgetPastDeferrals(): void {
    const now = Date.now();
    for (const [id, until] of this.deferred) if (until.getTime() <= now) this.deferred.delete(id);
    if (this.deferred.size > MAX_CONFIRMED_INVOICES)
      this.deferred.delete(this.deferred.keys().next().value as string);
  }

  /**
   * Whether deliveries of `gatewayId` received up to `receivedBefore` are answered already: a lookup that started
   * after they arrived was applied, so what the service said then is at least as new as what they report.
   */
  answered(gatewayId: string, receivedBefore: Date): boolean {
    return this.answeredRecord(gatewayId, receivedBefore) !== null;
  }

  /** The record the answering lookup was applied to, when {@link answered} (else `null`). */
  answeredRecord(gatewayId: string, receivedBefore: Date): string | null {
    const confirmed = this.confirmedAt.get(gatewayId);
    return confirmed !== undefined && receivedBefore.getTime() < confirmed.at ? confirmed.recordId : null;
  }

  /** Remembers that a lookup of `gatewayId` started at `startedAt` was applied to `recordId` (see {@link answered}). */
  applied(gatewayId: string, startedAt: Date, recordId: string): void {
    const previous = this.confirmedAt.get(gatewayId);
    if (previous !== undefined && previous.at >= startedAt.getTime()) return;
    this.confirmedAt.delete(gatewayId);
    if (this.confirmedAt.size >= MAX_CONFIRMED_INVOICES) {
      this.confirmedAt.delete(this.confirmedAt.keys().next().value as string);
    }
    this.confirmedAt.set(gatewayId, { at: startedAt.getTime(), recordId });
  }
}
