import { CallCeiling } from '../reconciliation/call-ceiling';

/** Invoices whose latest lookup start is remembered at most at once (oldest forgotten first). */
const MAX_TRACKED_INVOICES = 10_000;

/**
 * How often deliveries may make the module ask the service about an invoice: at most one lookup per invoice per
 * `windowMs` (`webhooks.lookupWindowMs`), however many deliveries name it, and at most `perSecond` lookups a second
 * in all (`webhooks.lookupsPerSecond`, a {@link CallCeiling} of one second). A delivery is only a trigger, so one
 * lookup that starts after it arrived answers it: waiting for the next window loses nothing. Per process.
 */
export class LookupPace {
  private readonly started = new Map<string, number>();
  private readonly ceiling: CallCeiling;

  constructor(
    private readonly windowMs: number,
    perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.ceiling = new CallCeiling(perSecond, now, 1000);
  }

  /**
   * Takes a lookup of `gatewayId` now (`0`), or answers in how many ms one may start: the invoice was looked up
   * less than a window ago, or this second's lookups are spent.
   */
  take(gatewayId: string): number {
    const t = this.now();
    const last = this.started.get(gatewayId);
    if (last !== undefined && t - last < this.windowMs) return last + this.windowMs - t;
    if (!this.ceiling.take()) return this.ceiling.msUntilNextWindow();
    this.started.delete(gatewayId);
    if (this.started.size >= MAX_TRACKED_INVOICES) {
      this.started.delete(this.started.keys().next().value as string);
    }
    this.started.set(gatewayId, t);
    return 0;
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
      `invoice ${gatewayId} was looked up moments ago or lookups are paced; looked up again at ${retryAt.toISOString()}`,
    );
  }
}
