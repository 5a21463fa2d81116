import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  UnauthorizedException,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import { lastValueFrom, Observable } from 'rxjs';
import { INVOICE_PAYMENTS_ADMIN_OPTIONS, MIN_ADMIN_KEY_LENGTH } from './constants';
import type { InvoicePaymentsAdminOptions } from './types';

interface RequestWithHeaders {
  headers: Record<string, string | string[] | undefined>;
}

/** Admin options whose "locked" warning was logged (once per configuration). */
const warnedFor = new WeakSet<object>();

/**
 * Guards the admin API. When the host gave its own guard (`admin.guard`) that guard decides alone (as if it were on
 * the routes itself); otherwise the request must carry `Authorization: Bearer <admin.adminKey>`, compared in constant
 * time, and anything else is 401.
 */
@Injectable()
export class InvoicePaymentsAdminGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger('InvoicePaymentsAdmin');
  private hostGuard: CanActivate | null = null;
  private readonly keyDigest: Buffer | null;

  constructor(
    @Inject(INVOICE_PAYMENTS_ADMIN_OPTIONS) private readonly options: InvoicePaymentsAdminOptions,
    private readonly moduleRef: ModuleRef,
  ) {
    const key = options.adminKey;
    if (key !== undefined && key.length < MIN_ADMIN_KEY_LENGTH) {
      throw new Error(`admin.adminKey must be at least ${MIN_ADMIN_KEY_LENGTH} characters`);
    }
    this.keyDigest = key ? digest(key) : null;
  }

  /**
   * Warns about a locked admin API only where its routes are served: an application context without HTTP (the
   * Medusa runtime, a CLI) mounts no admin route, so there is nothing locked to warn about.
   */
  onApplicationBootstrap(): void {
    let http: unknown;
    try {
      http = this.moduleRef.get(HttpAdapterHost, { strict: false })?.httpAdapter;
    } catch {
      http = undefined;
    }
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
    if (this.options.guard) return this.runHostGuard(context);
    const request = context.switchToHttp().getRequest<RequestWithHeaders>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedException('admin key required: send Authorization: Bearer <admin key>');
    // Hashing first gives both sides the same length, so the comparison time says nothing about the key.
    if (!this.keyDigest || !timingSafeEqual(digest(match[1]), this.keyDigest)) {
      throw new UnauthorizedException('admin key is not valid');
    }
    return true;
  }

  /** Exactly as if the host had put its guard on the routes: its exceptions and its `false` (403) stand. */
  private async runHostGuard(context: ExecutionContext): Promise<boolean> {
    return settle((await this.resolveHostGuard()).canActivate(context));
  }

  private async resolveHostGuard(): Promise<CanActivate> {
    if (this.hostGuard) return this.hostGuard;
    const guard = this.options.guard as NonNullable<InvoicePaymentsAdminOptions['guard']>;
    if (typeof guard !== 'function') return (this.hostGuard = guard);
    // A guard class: use the host's instance when it provides one, else build it with the host's providers.
    let instance: CanActivate | undefined;
    try {
      instance = this.moduleRef.get(guard, { strict: false });
    } catch {
      instance = undefined;
    }
    this.hostGuard = instance ?? (await this.moduleRef.create(guard));
    return this.hostGuard;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

async function settle(result: boolean | Promise<boolean> | Observable<boolean>): Promise<boolean> {
  return result instanceof Observable ? lastValueFrom(result) : result;
}
