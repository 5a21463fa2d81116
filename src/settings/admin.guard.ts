import {
  CanActivate,
  ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  Optional,
  UnauthorizedException,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { bulkhead, type BulkheadPolicy } from 'cockatiel';
import { isIPv6 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastValueFrom, Observable } from 'rxjs';
import { CLOCK, type Clock } from '../domain/clock';
import { sameSecret, secretDigest } from '../domain/text-and-days';
import { setResponseHeader } from '../errors/http-answers';
import { RateWindows } from '../core/rate-windows';
import { int, MINUTE, resolveNumbers, type Numbers } from '../domain/option-fields';
import type { AdminAuthThrottleOptions, InvoicePaymentsAdminOptions } from '../options/admin.options';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import { INVOICE_PAYMENTS_OPTIONS } from '../options/resolve';

interface AdminRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  socket?: { remoteAddress?: string };
}

/**
 * The host's `admin.guard` decides alone when given; otherwise `Authorization: Bearer <admin.adminKey>`, compared in
 * constant time. Failures (401/403) are throttled per client (`admin.authThrottle`) and logged without what was sent.
 */
@Injectable()
export class InvoicePaymentsAdminGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger('InvoicePaymentsAdmin');
  private hostGuard: CanActivate | null = null;
  private readonly keyDigest: Buffer | null;
  private readonly throttle: AdminAuthThrottle;
  private readonly options: InvoicePaymentsAdminOptions;

  constructor(
    @Inject(INVOICE_PAYMENTS_OPTIONS) moduleOptions: InvoicePaymentsModuleOptions,
    private readonly moduleRef: ModuleRef,
    @Inject(CLOCK) clock: Clock,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.options = moduleOptions.admin ?? {};
    const key = this.options.adminKey;
    if (key !== undefined && key.length < 16) {
      throw new Error('admin.adminKey must be at least 16 characters');
    }
    this.keyDigest = key ? secretDigest(key) : null;
    this.throttle = new AdminAuthThrottle(this.options.authThrottle ?? {}, () => clock.now());
  }

  /** Warns of a locked admin API only where routes are served (not in a context without HTTP). */
  onApplicationBootstrap(): void {
    if (this.adapterHost?.httpAdapter && !this.options.guard && !this.options.adminKey) {
      this.logger.warn(
        'admin API is locked: set admin.adminKey (or admin.guard) in the module options, i.e. in forRoot({ admin }) ' +
          "or in the object forRootAsync's useFactory returns (e.g. from ConfigService)",
      );
    }
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AdminRequest>();
    const response = http.getResponse<object>();
    setResponseHeader(response, 'X-Content-Type-Options', 'nosniff');
    // Credentials first: the right ones are never throttled, however many failures share the address (a NAT).
    let refusal: unknown = null;
    try {
      if (this.options.guard ? await this.runHostGuard(context) : this.checkKey(request)) return true;
    } catch (err) {
      const status = err instanceof HttpException ? err.getStatus() : 0;
      if (status !== 401 && status !== 403) throw err;
      refusal = err;
    }
    const client = clientOf(request);
    const verdict = this.throttle.fail(client);
    const { failures, maxFailures, windowSeconds } = verdict;
    // The client, reason and count (never the key), now and then.
    if (verdict.log) {
      const reason = refusal instanceof Error ? refusal.message : 'refused by the host guard';
      const slowed =
        failures >= maxFailures
          ? '; further failures are answered 429, slowed, and logged at each tenfold count'
          : '';
      this.logger.warn(
        `admin authentication failed from ${client} (${reason}): ${failures} of ${maxFailures} allowed in ${windowSeconds} s${slowed}`,
      );
    }
    if (!verdict.limited) {
      if (refusal) throw refusal;
      return false;
    }
    await this.throttle.slowDown();
    setResponseHeader(response, 'Retry-After', String(verdict.retryAfterSeconds));
    throw new HttpException(
      {
        statusCode: 429,
        error: 'Too Many Requests',
        message: `too many failed admin authentications: retry in ${verdict.retryAfterSeconds} s`,
      },
      429,
    );
  }

  private checkKey(request: AdminRequest): boolean {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedException('admin key required: send Authorization: Bearer <admin key>');
    if (!this.keyDigest || !sameSecret(match[1], this.keyDigest)) {
      throw new UnauthorizedException('admin key is not valid');
    }
    return true;
  }

  /** As if on the routes: its exceptions and its `false` (403) stand; a class is built once from global modules. */
  private async runHostGuard(context: ExecutionContext): Promise<boolean> {
    const guard = this.options.guard as NonNullable<InvoicePaymentsAdminOptions['guard']>;
    this.hostGuard ??= typeof guard === 'function' ? await this.moduleRef.create(guard) : guard;
    const result = this.hostGuard.canActivate(context);
    return result instanceof Observable ? lastValueFrom(result) : result;
  }
}

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
  private readonly holds: BulkheadPolicy;

  /** `now`: the module's clock (epoch ms). */
  constructor(options: AdminAuthThrottleOptions, now: () => number) {
    this.options = resolveNumbers('admin.authThrottle', THROTTLE, options);
    const { maxFailures, windowMs, maxClients } = this.options;
    this.windows = new RateWindows({ maxHits: maxFailures, windowMs, maxKeys: maxClients }, now);
    this.holds = bulkhead(this.options.maxHeld);
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
    if (this.options.slowdownMs === 0 || this.holds.executionSlots === 0) return;
    await this.holds.execute(() => sleep(this.options.slowdownMs));
  }
}

/** `req.ip` (honouring the host's `trust proxy`); an IPv6 address by its /64, which one machine usually holds. */
export function clientOf(request: Omit<AdminRequest, 'headers'>): string {
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
