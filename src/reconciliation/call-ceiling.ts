/**
 * At most `limit` calls in any window of `windowMs` (fixed windows; one minute unless told): what a caller may ask of
 * the service however much is due (the reconciliation a minute, webhook confirmations a second). `take()` spends one
 * call, or answers `false` when the window's are spent; {@link msUntilNextWindow} says when to come back.
 */
export class CallCeiling {
  private windowStart = 0;
  private used = 0;

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = 60_000,
  ) {}

  /** Calls left in the current window. */
  remaining(): number {
    this.roll();
    return Math.max(0, this.limit - this.used);
  }

  take(): boolean {
    this.roll();
    if (this.used >= this.limit) return false;
    this.used++;
    return true;
  }

  /** Milliseconds until the current window ends (at least 1). */
  msUntilNextWindow(): number {
    this.roll();
    return Math.max(1, this.windowStart + this.windowMs - this.now());
  }

  private roll(): void {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      this.windowStart = t;
      this.used = 0;
    }
  }
}
