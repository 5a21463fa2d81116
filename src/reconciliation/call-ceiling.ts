/**
 * At most `perMinute` calls in any window of one minute (fixed windows): what the reconciliation may ask of the
 * service, however many invoices are due. `take()` spends one call, or answers `false` when the window's are spent.
 */
export class CallCeiling {
  private windowStart = 0;
  private used = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Calls left in the current window. */
  remaining(): number {
    this.roll();
    return Math.max(0, this.perMinute - this.used);
  }

  take(): boolean {
    this.roll();
    if (this.used >= this.perMinute) return false;
    this.used++;
    return true;
  }

  private roll(): void {
    const t = this.now();
    if (t - this.windowStart >= 60_000) {
      this.windowStart = t;
      this.used = 0;
    }
  }
}
