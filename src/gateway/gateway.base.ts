import { HttpService } from '@nestjs/axios';
import { Logger, type LoggerService } from '@nestjs/common';
import * as cockatiel from 'cockatiel';
import { observeServiceCall } from '../observability/otel';
import { OPERATION_SCOPES } from './constants';
import * as failures from './error.mapper';
import { GatewayError, GatewayRateLimitError, GatewayResponseError, GatewayUnsupportedError } from './errors';
import { checkConnection, type GatewayClientOptions, type GatewayConnection } from './gateway.options';
import { axiosExchange, ExchangeFailure, HttpExchange, nodeExchange, proxyConfigured } from './http-exchange';
import { PayloadReader } from './payload.reader';
import { DEFAULT_WIRE_PROFILE, mergeWireProfile, valueAt, WireProfile } from './wire-profile';

export interface RequestPlan {
  operation: string;
  invoiceRef?: string;
  /** Creation only: resolves an unknown outcome. */
  referrer?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'COPY';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  safety: failures.RequestSafety;
  /** Named in a 403 that does not say (default: `OPERATION_SCOPES`). */
  scope?: string;
  /** Basic credentials instead of the bearer token (authenticate, A5). */
  basic?: { user: string; password: string };
  /** More strings to keep out of errors and logs. */
  secrets?: string[];
  /** Statuses handed back instead of becoming errors. */
  passStatuses?: number[];
}

export type HttpAnswer = { status: number; body: unknown };
export type Planned = Omit<RequestPlan, 'operation' | 'invoiceRef'>;
export type CallContext = { conn: GatewayConnection; profile: WireProfile };

/** `key=value` reference of an invoice, from input (the value at `path`) that may not be valid yet. */
export function ref(key: string, input: unknown, path?: string): string | undefined {
  const value = path === undefined ? input : valueAt(input, path);
  return typeof value === 'string' || typeof value === 'number' ? `${key}=${value}` : undefined;
}

export function unsupported(operation: string, what: string): never {
  const detail = `the wire profile says the service has no ${what}; nothing was sent`;
  throw new GatewayUnsupportedError({ operation }, detail);
}

/** The one call path: connection and profile, the request (safe ones retried), its answer read or a `GatewayError`. */
export abstract class GatewayClientBase {
  protected readonly timeouts = { defaultMs: 15_000, createMs: 30_000, readMs: 10_000 };
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

  constructor(
    protected readonly options: GatewayClientOptions,
    http?: HttpService,
  ) {
    this.exchange = http || proxyConfigured() ? axiosExchange(http) : nodeExchange();
    Object.assign(this.timeouts, options.timeouts);
    Object.assign(this.retrySettings, options.retry);
    this.logger = options.logger ?? new Logger('GatewayClient');
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
  }

  /** The connection and wire profile for this call: `resolveConfig()`, else the options. */
  protected async context(operation: string, needsToken = true, check = true): Promise<CallContext> {
    const resolve = this.options.resolveConfig;
    const source = resolve ? await resolve() : this.options;
    let profile = this.baseProfile;
    if (resolve && source?.profile) {
      profile = this.profiles.get(source.profile) ?? mergeWireProfile(profile, source.profile);
      this.profiles.set(source.profile, profile);
    }
    return { conn: check ? checkConnection(source, operation, needsToken) : source, profile };
  }

  /** One request, its answer read; an unreadable 2xx to a write changing an invoice is an unknown outcome. */
  protected async call<T>(
    { operation, invoiceRef }: { operation: string; invoiceRef?: string },
    plan: (profile: WireProfile, conn: GatewayConnection) => Planned | Promise<Planned>,
    read: (r: PayloadReader, answer: HttpAnswer, profile: WireProfile) => T,
    needsToken = true,
    ctx?: CallContext,
  ): Promise<T> {
    const { conn, profile } = ctx ?? (await this.context(operation, needsToken));
    const planned = await plan(profile, conn);
    const answer = await this.send(conn, { operation, invoiceRef, ...planned });
    try {
      return read(new PayloadReader(operation), answer, profile);
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      // The reader's error gets the invoice reference; an implausible amount goes to `onImplausibleAmount`.
      const context = { operation, invoiceRef, sent: true };
      const error = invoiceRef ? new GatewayResponseError(context, err.detail, err.implausibleAmount) : err;
      if (error.implausibleAmount) {
        try {
          this.options.onImplausibleAmount?.(error);
        } catch {
          // The answer is refused either way; the listener's failure is its own.
        }
      }
      const base = { ...context, httpStatus: answer.status };
      throw failures.lostOr({ operation, ...planned }, error.detail, 'unreadable_response', error, base);
    }
  }

  /** Sends with the request's timeout, retrying safe requests only; every failure becomes a `GatewayError`. */
  protected async send(conn: GatewayConnection, request: RequestPlan): Promise<HttpAnswer> {
    const { readMs, createMs, defaultMs } = this.timeouts;
    const timeoutMs = request.safety === 'read' ? readMs : request.safety === 'create' ? createMs : defaultMs;
    const plan = { ...request, scope: request.scope ?? OPERATION_SCOPES[request.operation], timeoutMs };
    const basic = plan.basic ? [plan.basic.password, `${plan.basic.user}:${plan.basic.password}`] : [];
    const secrets = [conn.accessToken, ...(plan.secrets ?? []), ...basic];
    const ctx: failures.FailureContext = { ...plan, secrets };
    const maxAttempts = Math.max(0, this.retrySettings.maxAttempts - 1);
    const backoff = new cockatiel.DelegateBackoff(this.delayFor);
    const policy = cockatiel.retry(
      cockatiel.handleWhen((err) => this.retryable(err, plan.safety)),
      { maxAttempts, backoff },
    );
    policy.onRetry(({ attempt, delay, ...event }) => {
      const reason = 'error' in event && event.error instanceof Error ? event.error.message : 'failure';
      this.logger.warn(`${plan.operation}: attempt ${attempt} failed (${reason}); retrying in ${delay} ms`);
    });
    return observeServiceCall(conn.baseUrl, plan.operation, () =>
      policy.execute(() => this.attempt(conn, plan, ctx)),
    );
  }

  private async attempt(
    conn: GatewayConnection,
    plan: RequestPlan & { timeoutMs: number },
    ctx: failures.FailureContext,
  ): Promise<HttpAnswer> {
    const started = Date.now();
    // URLSearchParams writes each value as its text, numbers included.
    const query = plan.query ? `?${new URLSearchParams(plan.query as Record<string, string>)}` : '';
    this.logger.debug?.(
      failures.redact(`${plan.operation}: → ${plan.method} ${plan.path}${query}`, ctx.secrets),
    );
    const authorization = plan.basic
      ? `Basic ${Buffer.from(`${plan.basic.user}:${plan.basic.password}`).toString('base64')}`
      : `Bearer ${conn.accessToken}`;
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: authorization };
    if (plan.body !== undefined) headers['Content-Type'] = 'application/json';
    const body = plan.body === undefined ? undefined : JSON.stringify(plan.body);
    const url = `${conn.baseUrl}${plan.path}${query}`;
    try {
      // The answer is read whole when the exchange returns: aborting then would only build an AbortError for nothing.
      const policy = cockatiel.timeout(plan.timeoutMs, {
        strategy: cockatiel.TimeoutStrategy.Aggressive,
        abortOnReturn: false,
      });
      const answer = await policy.execute(async ({ signal }) => {
        const res = await this.exchange({ method: plan.method, url, headers, body, signal }).catch((err) => {
          const message = err instanceof Error ? err.message : 'request failed';
          const code = err instanceof ExchangeFailure ? err.code : null;
          throw failures.errorForTransportFailure(ctx, code, message);
        });
        const failure = plan.passStatuses?.includes(res.status)
          ? null
          : failures.errorForResponse(ctx, res.status, res.data, res.headers);
        if (failure) throw failure;
        return { status: res.status, body: res.data };
      });
      this.logger.debug?.(`${plan.operation}: ← ${answer.status} in ${Date.now() - started} ms`);
      return answer;
    } catch (err) {
      const error =
        err instanceof cockatiel.TaskCancelledError ? failures.errorForTimeout(ctx, plan.timeoutMs) : err;
      if (error instanceof GatewayError) {
        this.logger.debug?.(`${plan.operation}: ✗ ${error.kind} after ${Date.now() - started} ms`);
      }
      throw error;
    }
  }

  /** Anything that never left, and reads that failed transiently. */
  private retryable(err: unknown, safety: failures.RequestSafety): boolean {
    if (!(err instanceof GatewayError)) return false;
    if (err.kind === 'network' && !err.sent) return true;
    if (safety !== 'read') return false;
    if (err instanceof GatewayRateLimitError) {
      return err.retryAfterMs === null || err.retryAfterMs <= this.retrySettings.maxRetryAfterMs;
    }
    return err.kind === 'timeout' || err.kind === 'network' || err.kind === 'unavailable';
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
