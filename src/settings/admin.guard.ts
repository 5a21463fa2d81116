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
import { setResponseHeader } from '../errors/invoice-payments-errors.filter';
import { AdminAuthThrottle, clientOf, type FailureVerdict } from './auth-throttle';
import { INVOICE_PAYMENTS_ADMIN_OPTIONS, MIN_ADMIN_KEY_LENGTH } from './constants';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';

interface AdminRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  socket?: { remoteAddress?: string };
}

/** Admin options whose "locked" warning was logged (once per configuration). */
const warnedFor = new WeakSet<object>();

/**
 * Guards the admin API. When the host gave its own guard (`admin.guard`) that guard decides alone (as if it were on
 * the routes itself); otherwise the request must carry `Authorization: Bearer <admin.adminKey>`, compared in constant
 * time, and anything else is 401.
 *
 * The right credentials are never refused by the failure throttle. Failed authentications (401/403, either way)
 * are counted per client (`admin.authThrottle`): past the limit a failure is answered 429 with `Retry-After`, after
 * `slowdownMs`, until the client's window ends. Failures are logged with the client's address and the reason,
 * never with what was sent (each one up to the limit, then at each tenfold count). Every answer under the prefix
 * carries `X-Content-Type-Options: nosniff` (set here: the guard runs first on every admin route).
 */
@Injectable()
export class InvoicePaymentsAdminGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger('InvoicePaymentsAdmin');
  private hostGuard: CanActivate | null = null;
  private readonly keyDigest: Buffer | null;
  private readonly throttle: AdminAuthThrottle;

  constructor(
    @Inject(INVOICE_PAYMENTS_ADMIN_OPTIONS) private readonly options: InvoicePaymentsAdminOptions,
    private readonly moduleRef: ModuleRef,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    const key = options.adminKey;
    if (key !== undefined && key.length < MIN_ADMIN_KEY_LENGTH) {
      throw new Error(`admin.adminKey must be at least ${MIN_ADMIN_KEY_LENGTH} characters`);
    }
    this.keyDigest = key ? digest(key) : null;
    this.throttle = new AdminAuthThrottle(options.authThrottle);
  }

  /**
   * Warns about a locked admin API only where its routes are served: an application context without HTTP (the
   * Medusa runtime, a CLI) mounts no admin route, so there is nothing locked to warn about.
   */
  onApplicationBootstrap(): void {
    const http = this.adapterHost?.httpAdapter;
    // Nest may build the guard once per controller: one warning per configuration is enough.
    if (http && !this.options.guard && !this.options.adminKey && !warnedFor.has(this.options)) {
      warnedFor.add(this.options);
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
    // The credentials are always looked at first: the right ones open the door, however many failures came from
    // the same address (a reverse proxy, a NAT). Only a failure is counted, and slowed once past the limit.
    let refusal: unknown = null;
    try {
      if (this.options.guard ? await this.runHostGuard(context) : this.checkKey(request)) return true;
    } catch (err) {
      const status = err instanceof HttpException ? err.getStatus() : 0;
      if (status !== 401 && status !== 403) throw err;
      refusal = err;
    }
    const reason = refusal instanceof Error ? refusal.message : 'refused by the host guard';
    const verdict = this.failed(clientOf(request), reason);
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

  /** Counts a failure; logs it (the client, the reason and the count, never the key or the header) now and then. */
  private failed(client: string, reason: string): FailureVerdict {
    const verdict = this.throttle.fail(client);
    const { failures, maxFailures, windowSeconds } = verdict;
    if (verdict.log) {
      const slowed =
        failures >= maxFailures
          ? '; further failures are answered 429, slowed, and logged at each tenfold count'
          : '';
      this.logger.warn(
        `admin authentication failed from ${client} (${reason}): ${failures} of ${maxFailures} allowed in ${windowSeconds} s${slowed}`,
      );
    }
    return verdict;
  }

  private checkKey(request: AdminRequest): boolean {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedException('admin key required: send Authorization: Bearer <admin key>');
    // Hashing first gives both sides the same length, so the comparison time says nothing about the key.
    if (!this.keyDigest || !timingSafeEqual(digest(match[1]), this.keyDigest)) {
      throw new UnauthorizedException('admin key is not valid');
    }
    return true;
  }

  /**
   * Exactly as if the host had put its guard on the routes: its exceptions and its `false` (403) stand. A guard class
   * is built once, its dependencies from the app's global modules (as `orderPort` is built).
   */
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
