import type { HttpService } from '@nestjs/axios';
import { Logger, type LoggerService } from '@nestjs/common';
import * as cockatiel from 'cockatiel';
import { type Clock, systemClock } from '../domain/clock';
import * as inputs from './dto/inputs';
import { validateInput } from './dto/validators';
import * as failures from './error.mapper';
import { GatewayError, GatewayRateLimitError, GatewayResponseError } from './errors';
import {
  checkConnection,
  type GatewayCallObserver,
  type GatewayClientOptions,
  type GatewayConnection,
  type GatewayConnectionSource,
} from './gateway.options';
import { type ExchangeAnswer, ExchangeFailure, exchangeFor, type HttpExchange } from './http-exchange';
import { readInvoice, readPage } from './invoice.reader';
import { PayloadReader, UnknownAmountsLog } from './payload.reader';
import type { Invoice, ListInvoicesParams, Page } from './types';
import { DEFAULT_WIRE_PROFILE, type ListKind, mergeWireProfile, type WireProfile } from './wire-profile';

/** A request: what its errors say of it (the operation, its safety...) and what is sent. */
export interface RequestPlan extends Omit<failures.FailureContext, 'secrets'> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'COPY';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  /** Basic credentials instead of the bearer token (authenticate, A5). */
  basic?: { user: string; password: string };
  /** More strings to keep out of errors and logs. */
  secrets?: string[];
  /** Statuses handed back instead of becoming errors. */
  passStatuses?: number[];
}

export type Planned = Omit<RequestPlan, 'operation' | 'invoiceRef'>;
export type Context = { operation: string; invoiceRef?: string };
export type CallContext = { conn: GatewayConnection; profile: WireProfile };
/** Reads an answer; a `GatewayResponseError` it throws is the answer's fault. */
export type Read<T> = (r: PayloadReader, answer: ExchangeAnswer, profile: WireProfile) => T;

export type Filters = ListInvoicesParams & { id?: string };

/** One page of `kind`, its filters under the profile's parameter names (in the profile's order). */
export function listRequest({ list, paths }: WireProfile, kind: ListKind, filters: Filters): Planned {
  const query: Record<string, string | number> = {};
  for (const [key, name] of Object.entries(list.query)) {
    const value = filters[key as keyof Filters];
    if (value !== undefined) query[name] = value;
  }
  return { method: 'GET', path: paths[kind], query, safety: 'read' };
}

/** By `pages` when the service says it, else a page shorter than asked. */
export function isLastPage(page: Page<unknown>): boolean {
  if (page.items.length === 0) return true;
  return page.pages !== null ? page.page >= page.pages : page.items.length < page.limit;
}

const TIMEOUT_OF = { read: 'readMs', create: 'createMs', update: 'defaultMs', write: 'defaultMs' } as const;

/** Without an observer, a call is only made. */
const UNOBSERVED: GatewayCallObserver = { observe: (_call, work) => work() };

/**
 * The one call path to the service: the connection and profile in force, the request (safe ones retried), the
 * HTTP exchange, its answer read or a `GatewayError`. Every call is told to the observer.
 */
export class GatewayTransport {
  /** Timeouts in ms: creation, reads, and every other write (a write's bounds the whole call, see `send`). */
  readonly timeouts = { defaultMs: 15_000, createMs: 30_000, readMs: 10_000 };
  private readonly retrySettings = {
    maxAttempts: 3,
    initialDelayMs: 200,
    maxDelayMs: 5_000,
    maxRetryAfterMs: 10_000,
  };
  private readonly exchange: HttpExchange;
  private readonly logger: LoggerService;
  private readonly baseProfile: WireProfile;
  /** Effective profiles by the runtime overrides they came from (settings are cached objects). */
  private readonly profiles = new WeakMap<object, WireProfile>();
  private readonly unknownAmounts: UnknownAmountsLog;

  constructor(
    private readonly options: GatewayClientOptions,
    httpService?: HttpService,
    private readonly observer: GatewayCallObserver = UNOBSERVED,
    private readonly clock: Clock = systemClock,
    private readonly connection?: GatewayConnectionSource,
  ) {
    this.exchange = exchangeFor(httpService);
    Object.assign(this.timeouts, options.timeouts);
    Object.assign(this.retrySettings, options.retry);
    this.logger = options.logger ?? new Logger('GatewayClient');
    this.unknownAmounts = new UnknownAmountsLog(this.logger);
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
  }

  /** The connection and wire profile for this call: the connection source's in force, else the options. */
  async context(operation: string, needsToken = true, check = true): Promise<CallContext> {
    const source = this.connection ? await this.connection.gatewayConfig() : this.options;
    let profile = this.baseProfile;
    if (this.connection && source?.profile) {
      profile = this.profiles.get(source.profile) ?? mergeWireProfile(profile, source.profile);
      this.profiles.set(source.profile, profile);
    }
    return { conn: check ? checkConnection(source, operation, needsToken) : source, profile };
  }

  /** One request, its answer read; an unreadable 2xx to a write changing an invoice is an unknown outcome. */
  async call<T>(
    { operation, invoiceRef }: Context,
    plan: (profile: WireProfile, conn: GatewayConnection) => Planned | Promise<Planned>,
    read: Read<T>,
    needsToken = true,
    ctx?: CallContext,
  ): Promise<T> {
    const { conn, profile } = ctx ?? (await this.context(operation, needsToken));
    const planned = await plan(profile, conn);
    const answer = await this.send(conn, { operation, invoiceRef, ...planned });
    const r = new PayloadReader(operation);
    try {
      const value = read(r, answer, profile);
      this.unknownAmounts.log(r);
      return value;
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      // The reader's error gets the invoice reference; an implausible amount goes to `onImplausibleAmount`.
      const base = { operation, invoiceRef, sent: true, httpStatus: answer.status };
      const error = new GatewayResponseError(base, err.detail, err.implausibleAmount);
      try {
        if (error.implausibleAmount) this.options.onImplausibleAmount?.(error);
      } catch {
        // The answer is refused either way; the listener's failure is its own.
      }
      throw failures.lostOr({ operation, ...planned }, error.detail, 'unreadable_response', error);
    }
  }

  /** Invoices page after page; a lookup's `id`, which the rules do not name, passes as a filter. */
  async *invoicePages(
    context: Context,
    filters: Omit<Filters, 'page'>,
    maxPages = Number.POSITIVE_INFINITY,
    given?: CallContext,
  ): AsyncGenerator<Invoice> {
    const ctx = given ?? (await this.context(context.operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        const detail = `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`;
        throw new GatewayResponseError({ ...context, sent: true }, detail);
      }
      const one = await this.page(context, 'invoices', { ...filters, page }, readInvoice, ctx);
      yield* one.items;
      if (isLastPage({ ...one, page })) return;
    }
  }

  /** One page of `kind`, its filters checked and sent under the profile's parameter names. */
  page<Item>(
    context: Context,
    kind: ListKind,
    filters: Filters,
    readItem: (r: PayloadReader, item: unknown, path: string, profile: WireProfile) => Item,
    ctx?: CallContext,
  ): Promise<Page<Item>> {
    validateInput(inputs.LIST_INVOICES, filters, context, inputs.listInvoicesRules);
    const asked = { page: filters.page ?? 1, limit: filters.limit ?? inputs.MAX_PAGE_SIZE };
    const plan = (p: WireProfile) => listRequest(p, kind, { ...filters, ...asked });
    const read: Read<Page<Item>> = (r, answer, p) => {
      const item = (value: unknown, at: string) => readItem(r, value, at, p);
      return readPage(r, answer.body, p.list, p.list.items[kind], asked, item);
    };
    return this.call(context, plan, read, true, ctx);
  }

  /**
   * Sends with the request's timeout, retrying safe requests only; every failure becomes a `GatewayError`.
   *
   * A read's timeout is per attempt. A write's timeout bounds the whole call: a retry of an attempt that never left
   * starts, and runs, only within it. Callers rely on that: a refund or a creation whose answer is lost counts its
   * request as able to land until the call's start plus the timeout (and a margin), then reads the service's silence
   * as "not made". A retry leaving later could land after that verdict and take money twice.
   */
  async send(conn: GatewayConnection, request: RequestPlan): Promise<ExchangeAnswer> {
    const { basic } = request;
    const basicSecrets = basic ? [basic.password, `${basic.user}:${basic.password}`] : [];
    const ctx: failures.FailureContext = {
      ...request,
      secrets: [conn.accessToken, ...(request.secrets ?? []), ...basicSecrets],
    };
    const timeoutMs = this.timeouts[TIMEOUT_OF[request.safety]];
    // The window opens as the first attempt starts, so that attempt has the whole timeout.
    let endsBy: number | undefined;
    let failed: unknown;
    const once = async () => {
      const now = this.clock.now();
      endsBy ??= request.safety === 'read' ? Number.POSITIVE_INFINITY : now + timeoutMs;
      const left = endsBy - now;
      // The backoff ran past the window: the last failure, which never left, is the call's.
      if (failed !== undefined && left <= 0) throw failed;
      return this.attempt(conn, request, ctx, Math.min(timeoutMs, left)).catch((err: unknown) => {
        failed = err;
        throw err;
      });
    };
    const policy = this.retryPolicy(request, () => this.clock.now() < (endsBy ?? Number.POSITIVE_INFINITY));
    const call = { baseUrl: conn.baseUrl, operation: request.operation };
    return this.observer.observe(call, () => policy.execute(once));
  }

  /** Retries of what failed safely (`failures.retryable`) while the call's window lasts, each one logged. */
  private retryPolicy(sent: RequestPlan, windowOpen: () => boolean) {
    const { maxAttempts, maxRetryAfterMs } = this.retrySettings;
    const retryable = cockatiel.handleWhen(
      (err) => failures.retryable(err, sent.safety, maxRetryAfterMs) && windowOpen(),
    );
    const backoff = new cockatiel.DelegateBackoff(this.delayFor);
    const policy = cockatiel.retry(retryable, { maxAttempts: Math.max(0, maxAttempts - 1), backoff });
    policy.onRetry(({ attempt, delay, ...event }) => {
      const reason = 'error' in event && event.error instanceof Error ? event.error.message : 'failure';
      this.logger.warn(`${sent.operation}: attempt ${attempt} failed (${reason}); retrying in ${delay} ms`);
    });
    return policy;
  }

  private async attempt(
    conn: GatewayConnection,
    sent: RequestPlan,
    ctx: failures.FailureContext,
    timeoutMs: number,
  ): Promise<ExchangeAnswer> {
    const started = this.clock.now();
    // URLSearchParams writes each value as its text, numbers included.
    const query = sent.query ? `?${new URLSearchParams(sent.query as Record<string, string>)}` : '';
    const line = `${sent.operation}: → ${sent.method} ${sent.path}${query}`;
    this.logger.debug?.(failures.redact(line, ctx.secrets));
    const request = {
      method: sent.method,
      url: `${conn.baseUrl}${sent.path}${query}`,
      headers: headersFor(conn, sent),
      body: sent.body === undefined ? undefined : JSON.stringify(sent.body),
    };
    // The answer is read whole when the exchange returns: aborting then would only build an AbortError for nothing.
    const timeout = cockatiel.timeout(timeoutMs, {
      strategy: cockatiel.TimeoutStrategy.Aggressive,
      abortOnReturn: false,
    });
    try {
      const answer = await timeout.execute(async ({ signal }) => {
        const res = await this.exchange({ ...request, signal }).catch((err: unknown) => {
          const message = err instanceof Error ? err.message : 'request failed';
          const code = err instanceof ExchangeFailure ? err.code : null;
          throw failures.errorForTransportFailure(ctx, code, message);
        });
        if (!sent.passStatuses?.includes(res.status)) {
          const failure = failures.errorForResponse(ctx, res.status, res.body, res.headers, this.clock.now());
          if (failure) throw failure;
        }
        return res;
      });
      this.logger.debug?.(`${sent.operation}: ← ${answer.status} in ${this.clock.now() - started} ms`);
      return answer;
    } catch (err) {
      const timedOut = err instanceof cockatiel.TaskCancelledError;
      const error = timedOut ? failures.errorForTimeout(ctx, timeoutMs) : err;
      if (error instanceof GatewayError) {
        this.logger.debug?.(`${sent.operation}: ✗ ${error.kind} after ${this.clock.now() - started} ms`);
      }
      throw error;
    }
  }

  /** A 429's `Retry-After`, else capped exponential backoff with equal jitter. */
  private readonly delayFor = (context: cockatiel.IRetryBackoffContext<unknown>): number => {
    const err = 'error' in context.result ? context.result.error : undefined;
    if (err instanceof GatewayRateLimitError && err.retryAfterMs !== null) return err.retryAfterMs;
    const { initialDelayMs, maxDelayMs } = this.retrySettings;
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** (context.attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  };
}

/** JSON both ways; Basic credentials for `authenticate`, the bearer token for every other call. */
function headersFor(conn: GatewayConnection, sent: RequestPlan): Record<string, string> {
  const basic = sent.basic && Buffer.from(`${sent.basic.user}:${sent.basic.password}`).toString('base64');
  const authorization = basic ? `Basic ${basic}` : `Bearer ${conn.accessToken}`;
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: authorization };
  if (sent.body !== undefined) headers['Content-Type'] = 'application/json';
  return headers;
}
