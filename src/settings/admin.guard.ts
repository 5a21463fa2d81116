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
import { createHash, timingSafeEqual } from 'node:crypto';
import { lastValueFrom, Observable } from 'rxjs';
import { CLOCK, type Clock } from '../domain/clock';
import { setResponseHeader } from '../errors/invoice-payments-errors.filter';
import { AdminAuthThrottle, clientOf } from './auth-throttle';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import { INVOICE_PAYMENTS_OPTIONS } from '../options/resolve';

interface AdminRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  socket?: { remoteAddress?: string };
}

const warnedFor = new WeakSet<object>();

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
    @Inject(INVOICE_PAYMENTS_OPTIONS) private readonly moduleOptions: InvoicePaymentsModuleOptions,
    private readonly moduleRef: ModuleRef,
    @Inject(CLOCK) clock: Clock,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.options = moduleOptions.admin ?? {};
    const key = this.options.adminKey;
    if (key !== undefined && key.length < 16) {
      throw new Error('admin.adminKey must be at least 16 characters');
    }
    this.keyDigest = key ? digest(key) : null;
    this.throttle = new AdminAuthThrottle(this.options.authThrottle ?? {}, () => clock.now());
  }

  /** Warns of a locked admin API only where routes are served (not in a context without HTTP). */
  onApplicationBootstrap(): void {
    const http = this.adapterHost?.httpAdapter;
    // Nest may build the guard once per controller.
    if (http && !this.options.guard && !this.options.adminKey && !warnedFor.has(this.moduleOptions)) {
      warnedFor.add(this.moduleOptions);
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
    // Hashing gives both sides one length, so the comparison time says nothing about the key.
    if (!this.keyDigest || !timingSafeEqual(digest(match[1]), this.keyDigest)) {
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

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
