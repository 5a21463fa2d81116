import { CallCeiling } from '../reconciliation/call-ceiling';

/** Invoice numbers remembered at most at once. */
const MAX_REMEMBERED = 10_000;

/** What a lookup of an invoice without a record here found. */
export type Verdict = 'unknown' | 'no-record';

/**
 * What the inbox remembers of deliveries naming invoices this store has no record of by number: which numbers the
 * service said it does not know (a further delivery for one is dead-lettered without asking again), and a budget of
 * lookups per window for such invoices, so a flood costs the service a bounded number of calls. Per process; bounded.
 */
export class UnknownInvoices {
  private readonly seen = new Map<string, { verdict: Verdict; until: number }>();
  private readonly lookups: CallCeiling;
  private unreported = 0;
  private lastReport = 0;

  constructor(
    lookupsPerWindow: number,
    private readonly windowMs: number,
    private readonly rememberMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lookups = new CallCeiling(lookupsPerWindow, now, windowMs);
  }

  /** Remembers what the lookup of `gatewayId` found: `unknown` at the service, or known there but `no-record` here. */
  remember(gatewayId: string, verdict: Verdict): void {
    const t = this.now();
    if (this.seen.size >= MAX_REMEMBERED) {
      for (const [id, v] of this.seen) if (v.until <= t) this.seen.delete(id);
      if (this.seen.size >= MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    }
    this.seen.set(gatewayId, { verdict, until: t + this.rememberMs });
  }

  /** What a recent lookup of `gatewayId` found, or `null`. */
  verdictOf(gatewayId: string): Verdict | null {
    const v = this.seen.get(gatewayId);
    if (!v) return null;
    if (v.until > this.now()) return v.verdict;
    this.seen.delete(gatewayId);
    return null;
  }

  /** Forgets `gatewayId` (a record of it exists now). */
  forget(gatewayId: string): void {
    this.seen.delete(gatewayId);
  }

  /** Spends one lookup for an invoice without a record; `null` when allowed, else ms until the window turns. */
  spendLookup(): number | null {
    return this.lookups.take() ? null : this.lookups.msUntilNextWindow();
  }

  /**
   * Counts a dead letter for an invoice the service does not know; answers how many to report in one alert when
   * one is due (at most one per window), else `0`: a flood raises one alert a window, not one per delivery.
   */
  countForAlert(): number {
    this.unreported++;
    const t = this.now();
    if (t - this.lastReport < this.windowMs) return 0;
    this.lastReport = t;
    const n = this.unreported;
    this.unreported = 0;
    return n;
  }
}
