import { LRUCache } from 'lru-cache';
import { secondsToWait } from '../domain/clock';

/** The limits of {@link RateWindows}. */
export interface RateWindowLimits {
  /** Hits a key may make per window; past it, each hit is `limited`. */
  maxHits: number;
  windowMs: number;
  /** Keys remembered at most (memory stays bounded); the least recently hit key is forgotten first. */
  maxKeys: number;
}

/** One hit counted. */
export interface RateHit {
  /** Hits of the key in its current window, this one included. */
  hits: number;
  limited: boolean;
  /** Seconds until the key's window starts over (at least 1): the `Retry-After` of a 429. */
  retryAfterSeconds: number;
}

/**
 * Hits per key in fixed windows, in memory, bounded, per process: the module's one rate limit (failed admin
 * authentications, the shopper's status route). Cheap enough to run before anything else a request does.
 */
export class RateWindows {
  private readonly windows: LRUCache<string, { hits: number; resetAt: number }>;

  /** `now`: the module's clock (epoch ms), from whoever builds it. */
  constructor(
    private readonly limits: RateWindowLimits,
    private readonly now: () => number,
  ) {
    this.windows = new LRUCache({ max: limits.maxKeys });
  }

  hit(key: string): RateHit {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now >= window.resetAt) {
      window = { hits: 0, resetAt: now + this.limits.windowMs };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return {
      hits: window.hits,
      limited: window.hits > this.limits.maxHits,
      retryAfterSeconds: secondsToWait(window.resetAt - now),
    };
  }
}
