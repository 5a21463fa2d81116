/** Invoice numbers the service said it does not know, remembered at most this many at once. */
const MAX_REMEMBERED = 10_000;

/**
 * What the inbox remembers of deliveries naming invoices this store has no record of (a leaked valid token, or
 * another system's invoices on the same account): which numbers the service said it does not know (so a further
 * delivery for one is dead-lettered without asking again), and a budget of lookups per window for such invoices, so
 * a flood costs the service a bounded number of calls. Per process; bounded.
 */
export class UnknownInvoices {
  private readonly unknownAtService = new Map<string, number>();
  private window = { start: 0, used: 0 };
  private unreported = 0;
  private lastReport = 0;

  constructor(
    private readonly lookupsPerWindow: number,
    private readonly windowMs: number,
    private readonly rememberMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The service said it does not know `gatewayId`. */
  rememberUnknown(gatewayId: string): void {
    const t = this.now();
    if (this.unknownAtService.size >= MAX_REMEMBERED) {
      for (const [id, until] of this.unknownAtService) if (until <= t) this.unknownAtService.delete(id);
      // Still full: forget the oldest.
      if (this.unknownAtService.size >= MAX_REMEMBERED)
        this.unknownAtService.delete(this.unknownAtService.keys().next().value as string);
    }
    this.unknownAtService.set(gatewayId, t + this.rememberMs);
  }

  /** Whether the service said recently that it does not know `gatewayId`. */
  isKnownUnknown(gatewayId: string): boolean {
    const until = this.unknownAtService.get(gatewayId);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.unknownAtService.delete(gatewayId);
    return false;
  }

  /** Spends one lookup for an invoice without a record; `null` when allowed, else ms until the window turns. */
  spendLookup(): number | null {
    const t = this.now();
    if (t - this.window.start >= this.windowMs) this.window = { start: t, used: 0 };
    if (this.window.used >= this.lookupsPerWindow) return this.window.start + this.windowMs - t;
    this.window.used++;
    return null;
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
