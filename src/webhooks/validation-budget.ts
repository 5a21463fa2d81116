/** Most source addresses tracked at once: a spray from many addresses cannot grow the map without bound. */
export const MAX_TRACKED_SOURCES = 10_000;

interface Window {
  start: number;
  used: number;
}

/** Why a validation was not asked for, and when to come back. */
export interface BudgetRefusal {
  scope: 'source' | 'global';
  retryAfterMs: number;
}

/**
 * The budget of validation calls for service tokens not confirmed before: at most `perSource` per window from one
 * source address, and `global` per window in all. One source's flood of forged tokens spends its own share only, so
 * the service (another address, or a token it had confirmed: those never spend) is not blocked by it. Fixed windows;
 * the per-source map holds at most {@link MAX_TRACKED_SOURCES} addresses (expired windows are dropped first; when
 * every one is live, the fullest map refuses new addresses against the global budget only).
 */
export class ValidationBudget {
  private global: Window = { start: 0, used: 0 };
  private readonly sources = new Map<string, Window>();

  constructor(
    private readonly perSource: number,
    private readonly globalLimit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one validation for `source`, or says why not. */
  spend(source: string): BudgetRefusal | null {
    const t = this.now();
    if (t - this.global.start >= this.windowMs) this.global = { start: t, used: 0 };
    const own = this.sourceWindow(source, t);
    if (own && own.used >= this.perSource) {
      return { scope: 'source', retryAfterMs: own.start + this.windowMs - t };
    }
    if (this.global.used >= this.globalLimit) {
      return { scope: 'global', retryAfterMs: this.global.start + this.windowMs - t };
    }
    this.global.used++;
    if (own) own.used++;
    return null;
  }

  /** How many source addresses are tracked (bounded). */
  get trackedSources(): number {
    return this.sources.size;
  }

  private sourceWindow(source: string, t: number): Window | null {
    let own = this.sources.get(source);
    if (own && t - own.start >= this.windowMs) {
      own.start = t;
      own.used = 0;
    }
    if (own) return own;
    if (this.sources.size >= MAX_TRACKED_SOURCES) {
      for (const [key, w] of this.sources) if (t - w.start >= this.windowMs) this.sources.delete(key);
      if (this.sources.size >= MAX_TRACKED_SOURCES) return null;
    }
    own = { start: t, used: 0 };
    this.sources.set(source, own);
    return own;
  }
}
