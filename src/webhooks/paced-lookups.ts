import type { Invoice } from '../gateway/types';
import { CallCeiling } from '../reconciliation/call-ceiling';

/** Invoices tracked at most at once in each map (oldest forgotten first). */
const MAX_TRACKED = 10_000;

/** Lookups of one invoice that may start back to back: its own life (paid, refunded moments apart) is not slowed. */
export const LOOKUP_BURST = 3;

/**
 * How often deliveries may make the module ask the service about an invoice: after {@link LOOKUP_BURST}, one per
 * invoice per `windowMs` (a bucket refilling one a window), and at most `perSecond` in all. A delivery is only a
 * trigger, so one lookup that starts after it arrived answers it: waiting for the next one loses nothing.
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

  /** In how many ms a lookup of `gatewayId` may start as far as its own pace goes (0: now); takes nothing. */
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

class LookupDeferred extends Error {
  constructor(gatewayId: string, retryAt: Date) {
    super(
      `lookups of invoice ${gatewayId} are paced (webhooks.lookupWindowMs): looked up again at ${retryAt.toISOString()}`,
    );
  }
}

/** Rows the intake stores for one invoice before its next lookup starts; later deliveries join the newest. */
export const MAX_ROWS_PER_LOOKUP = 50;

/**
 * The lookups deliveries make, one at a time per invoice as the {@link LookupPace} allows, and the inbox entry
 * waiting for the next one, which deliveries arriving meanwhile join. What waits is in the database.
 */
export class PacedLookups {
  private readonly pace: LookupPace;
  private readonly inFlight = new Map<string, Promise<Invoice | null>>();
  private readonly deferred = new Map<string, number>();
  /** Per invoice, an entry due when its next lookup may start. */
  private readonly waiting = new Map<string, { entryId: string; until: number }>();
  /** Per invoice, rows stored since its last lookup started, and the newest of them still joinable. */
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
        return Promise.reject(new LookupDeferred(gatewayId, new Date(retryAt)));
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

  /** When the put-off lookup of `gatewayId` may start, while that is still ahead; else `null`. */
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
  if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
