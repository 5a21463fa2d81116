import { isIPv6 } from 'node:net';

/** How failed admin authentications are limited (`admin.authThrottle`). */
export interface AdminAuthThrottleOptions {
  /** Failed authentications a client may make per window; the next request is refused (429). Default 10. */
  maxFailures?: number;
  /** Length of the window, in ms. Default 60 000 (so at most 10 guesses a minute per client). */
  windowMs?: number;
  /** Clients remembered at most (memory stays bounded); the least recently started window is forgotten. Default 10 000. */
  maxClients?: number;
}

/** What the throttle says about a request before its key is looked at. */
export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Window {
  failures: number;
  resetAt: number;
}

/**
 * Counts failed admin authentications per client in fixed windows, in memory, bounded. A client that used up its
 * failures is refused, without its key being compared, until its window ends: a brute force gets `maxFailures`
 * guesses per window, whatever its speed. Per process: behind several instances the limit multiplies by their
 * number, which still turns thousands of guesses a second into a handful a minute.
 */
export class AdminAuthThrottle {
  private readonly windows = new Map<string, Window>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxClients: number;

  constructor(
    options: AdminAuthThrottleOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxFailures = positive('maxFailures', options.maxFailures, 10);
    this.windowMs = positive('windowMs', options.windowMs, 60_000);
    this.maxClients = positive('maxClients', options.maxClients, 10_000);
  }

  /** Whether `client` may try a key now. */
  check(client: string): ThrottleVerdict {
    const window = this.windows.get(client);
    const now = this.now();
    if (!window || now >= window.resetAt || window.failures < this.maxFailures) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
  }

  /** Records a failure; answers how many the client made in its window, and the most allowed. */
  fail(client: string): { failures: number; maxFailures: number; windowSeconds: number } {
    const now = this.now();
    let window = this.windows.get(client);
    if (!window || now >= window.resetAt) {
      this.windows.delete(client);
      if (this.windows.size >= this.maxClients) this.evict(now);
      window = { failures: 0, resetAt: now + this.windowMs };
      this.windows.set(client, window);
    }
    window.failures += 1;
    return { failures: window.failures, maxFailures: this.maxFailures, windowSeconds: this.windowMs / 1000 };
  }

  /** Drops what has expired; when nothing has, the oldest window (insertion order is start order). */
  private evict(now: number): void {
    for (const [client, window] of this.windows) if (now >= window.resetAt) this.windows.delete(client);
    if (this.windows.size >= this.maxClients) this.windows.delete(this.windows.keys().next().value as string);
  }
}

/**
 * The client a failure is counted against: its address as the platform reports it (`req.ip`, which honours the
 * host's `trust proxy` setting behind a proxy), an IPv6 address by its /64 network, since one machine usually holds
 * a whole /64.
 */
export function clientOf(request: { ip?: string; socket?: { remoteAddress?: string } }): string {
  const address = (request.ip ?? request.socket?.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.)/, '');
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error(`admin.authThrottle.${name} must be a positive integer`);
  }
  return value;
}
