import { CallCeiling } from '../reconciliation/call-ceiling';

/** Invoices whose lookups are tracked at most at once (oldest forgotten first). */
const MAX_TRACKED_INVOICES = 10_000;

/**
 * Lookups of one invoice that may start back to back before the pace applies: an invoice's own life (created,
 * paid, refunded moments apart) is not slowed; a flood naming it is.
 */
export const LOOKUP_BURST = 3;

/**
 * How often deliveries may make the module ask the service about an invoice: after {@link LOOKUP_BURST} lookups in
 * a row, at most one per invoice per `windowMs` (`webhooks.lookupWindowMs`; a bucket that refills one lookup a
 * window), however many deliveries name it, and at most `perSecond` lookups a second in all
 * (`webhooks.lookupsPerSecond`, a {@link CallCeiling} of one second). A delivery is only a trigger, so one lookup
 * that starts after it arrived answers it: waiting for the next one loses nothing. Per process.
 */
export class LookupPace {
  /** Per invoice: lookups it may start now (up to the burst) as of `at`. */
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
    const bucket = this.buckets.get(gatewayId);
    if (!bucket) return 0;
    const tokens = Math.min(LOOKUP_BURST, bucket.tokens + (this.now() - bucket.at) / this.windowMs);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) * this.windowMs));
  }

  /**
   * Takes a lookup of `gatewayId` now (`waitMs` 0), or answers in how many ms one may start and why: `invoice`, its
   * lookups are spent until its bucket refills; `all`, this second's lookups are spent (nothing is taken then).
   */
  take(gatewayId: string): { waitMs: number; scope: 'invoice' | 'all' } {
    const t = this.now();
    const bucket = this.buckets.get(gatewayId);
    const tokens = bucket
      ? Math.min(LOOKUP_BURST, bucket.tokens + (t - bucket.at) / this.windowMs)
      : LOOKUP_BURST;
    if (tokens < 1) return { waitMs: Math.max(1, Math.ceil((1 - tokens) * this.windowMs)), scope: 'invoice' };
    if (!this.ceiling.take()) return { waitMs: this.ceiling.msUntilNextWindow(), scope: 'all' };
    this.buckets.delete(gatewayId);
    if (this.buckets.size >= MAX_TRACKED_INVOICES) {
      this.buckets.delete(this.buckets.keys().next().value as string);
    }
    this.buckets.set(gatewayId, { tokens: tokens - 1, at: t });
    return { waitMs: 0, scope: 'invoice' };
  }
}

/** A lookup not started now (see {@link LookupPace}): the delivery is taken again at `retryAt`. */
export class LookupDeferred extends Error {
  readonly kind = 'deferred';
  constructor(
    readonly gatewayId: string,
    readonly retryAt: Date,
  ) {
    super(
      `lookups of invoice ${gatewayId} are paced (webhooks.lookupWindowMs): looked up again at ${retryAt.toISOString()}`,
    );
  }
}
