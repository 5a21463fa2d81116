/** At most `limit` calls in any fixed window of `windowMs` (one minute unless told), however much is due. */
export class CallCeiling {
  private windowStart = 0;
  private used = 0;

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = 60_000,
  ) {}

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
