import { isIPv6 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateWindows } from '../core/rate-windows';
import { int, MINUTE, resolveNumbers, type Numbers } from '../domain/option-fields';
import type { AdminAuthThrottleOptions } from '../options/admin.options';

const THROTTLE = {
  maxFailures: int(1, 10),
  windowMs: int(1, MINUTE),
  maxClients: int(1, 10_000),
  slowdownMs: int(0, 1000),
  maxHeld: int(0, 100),
} as const satisfies Numbers<AdminAuthThrottleOptions>;

/**
 * Failed admin authentications per client in fixed windows, in memory, bounded, per process. The key's length
 * bounds guessing; this only slows and records a brute force at little cost to the store.
 */
export class AdminAuthThrottle {
  private readonly options: Record<keyof typeof THROTTLE, number>;
  private readonly windows: RateWindows;
  private held = 0;

  /** `now`: the module's clock (epoch ms). */
  constructor(options: AdminAuthThrottleOptions, now: () => number) {
    this.options = resolveNumbers('admin.authThrottle', THROTTLE, options);
    const { maxFailures, windowMs, maxClients } = this.options;
    this.windows = new RateWindows({ maxHits: maxFailures, windowMs, maxKeys: maxClients }, now);
  }

  /** This failure counted; `limited`: answered 429 instead of 401/403. */
  fail(client: string) {
    const { hits: failures, limited, retryAfterSeconds } = this.windows.hit(client);
    return {
      failures,
      maxFailures: this.options.maxFailures,
      windowSeconds: this.options.windowMs / 1000,
      limited,
      retryAfterSeconds,
      // Each failure up to the limit, then only each tenfold multiple: a flood writes a handful of lines.
      log: !limited || /^10+$/.test(String(failures / this.options.maxFailures)),
    };
  }

  /** Holds a limited failure's answer, unless `maxHeld` answers are held already. */
  async slowDown(): Promise<void> {
    if (this.options.slowdownMs === 0 || this.held >= this.options.maxHeld) return;
    this.held += 1;
    try {
      await sleep(this.options.slowdownMs);
    } finally {
      this.held -= 1;
    }
  }
}

/** `req.ip` (honouring the host's `trust proxy`); an IPv6 address by its /64, which one machine usually holds. */
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
