import http from 'node:http';
import https from 'node:https';
import { HttpService } from '@nestjs/axios';
import { Logger, type LoggerService } from '@nestjs/common';
import axios, { isAxiosError } from 'axios';
import * as cockatiel from 'cockatiel';
import { firstValueFrom } from 'rxjs';
import { observeServiceCall } from '../core/otel';
import { OPERATION_SCOPES } from './constants';
import * as failures from './error.mapper';
import { GatewayError, GatewayRateLimitError, GatewayResponseError, GatewayUnsupportedError } from './errors';
import { checkConnection, type GatewayClientOptions, type GatewayConnection } from './gateway.options';
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
export type Context = { operation: string; invoiceRef?: string };
export type CallContext = { conn: GatewayConnection; profile: WireProfile };
/** Reads an answer; a `GatewayResponseError` it throws is the answer's fault. */
export type Read<T> = (r: PayloadReader, answer: HttpAnswer, profile: WireProfile) => T;

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
  private readonly timeouts = { defaultMs: 15_000, createMs: 30_000, readMs: 10_000 };
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
    httpService?: HttpService,
  ) {
    this.exchange = httpService || proxyConfigured() ? axiosExchange(httpService) : nodeExchange();
    Object.assign(this.timeouts, options.timeouts);
    Object.assign(this.retrySettings, options.retry);
    this.logger = options.logger ?? new Logger('GatewayClient');
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
  }

  /** How long a write other than creation may take (`timeouts.defaultMs`). */
  get writeTimeoutMs(): number {
    return this.timeouts.defaultMs;
  }

  /** How long a create request may take (`timeouts.createMs`). */
  get createTimeoutMs(): number {
    return this.timeouts.createMs;
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
    { operation, invoiceRef }: Context,
    plan: (profile: WireProfile, conn: GatewayConnection) => Planned | Promise<Planned>,
    read: Read<T>,
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
    const { maxRetryAfterMs } = this.retrySettings;
    const retryable = cockatiel.handleWhen((err) => failures.retryable(err, plan.safety, maxRetryAfterMs));
    const policy = cockatiel.retry(retryable, { maxAttempts, backoff });
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
      if (error instanceof GatewayError)
        this.logger.debug?.(`${plan.operation}: ✗ ${error.kind} after ${Date.now() - started} ms`);
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

type ExchangeRequest = { method: string; url: string; headers: Record<string, string>; body?: string };
type ExchangeAnswer = { status: number; headers: Record<string, unknown>; data: unknown };

/** No HTTP answer: the system's code and message, nothing of the request. */
export class ExchangeFailure extends Error {
  constructor(
    readonly code: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'ExchangeFailure';
  }
}

/** Resolves with whatever status came back; rejects with {@link ExchangeFailure} only. */
type HttpExchange = (request: ExchangeRequest & { signal: AbortSignal }) => Promise<ExchangeAnswer>;

const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const USER_AGENT = 'nestjs-invoice-payments';

/** Node's `http`/`https`, cheaper than axios: no redirect followed (it could carry the token away), answer bounded. */
export function nodeExchange(maxBytes = MAX_ANSWER_BYTES): HttpExchange {
  return (request) =>
    new Promise<ExchangeAnswer>((resolve, reject) => {
      const url = new URL(request.url);
      const headers: Record<string, string> = { 'User-Agent': USER_AGENT, ...request.headers };
      if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
      const send = url.protocol === 'https:' ? https.request : http.request;
      const req = send(url, { method: request.method, headers, signal: request.signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= maxBytes) return void chunks.push(chunk);
          req.destroy();
          reject(new ExchangeFailure('ERR_ANSWER_TOO_LARGE', `answer larger than ${maxBytes} bytes`));
        });
        res.on('end', () => {
          const data = parseAnswer(Buffer.concat(chunks, size).toString('utf8'));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, data });
        });
        res.on('error', (err) => reject(failureOf(err)));
      });
      req.on('error', (err) => reject(failureOf(err)));
      req.end(request.body);
    });
}

/** Through a host's `HttpService`, or axios when the environment names an HTTP proxy (Node's `http` ignores it). */
function axiosExchange(service: HttpService = new HttpService(axios.create())): HttpExchange {
  return async (request) => {
    // OPTIONS, COPY and DELETE carry JSON bodies too (§4.4, §4.7, §4.8): axios sends `data` whatever the method.
    const { body: data, ...sent } = request;
    const bounds = { validateStatus: () => true, maxRedirects: 0, maxContentLength: MAX_ANSWER_BYTES };
    const answer = service.request<unknown>({ ...sent, data, ...bounds, responseType: 'json' });
    const res = await firstValueFrom(answer).catch((err: unknown) => Promise.reject(failureOf(err)));
    return { status: res.status, headers: res.headers as Record<string, unknown>, data: res.data };
  };
}

export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => Boolean(env[name]));
}

/** As axios reads a JSON answer: parsed when it parses, else the text (an empty answer: ''). */
function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

type Failure = { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown } | undefined;

/** Only the system code and message of a failure; axios' error (which holds the request's headers) is dropped. */
function failureOf(err: unknown): ExchangeFailure {
  if (err instanceof ExchangeFailure) return err;
  // Duck-typed: an error from Node's own realm is not an `instanceof Error` of every context (jest's, a vm).
  const e = (typeof err === 'object' && err !== null ? err : undefined) as Failure;
  const axios = isAxiosError(err);
  // The system error under axios' own (its `cause`), or the first of an `AggregateError`.
  const inner = (axios ? e?.cause : Array.isArray(e?.errors) ? e?.errors[0] : undefined) as Failure;
  const innerCode = typeof inner?.code === 'string' ? inner.code : null;
  let code = typeof e?.code === 'string' && e.code ? e.code : innerCode;
  if (axios && code === 'ERR_NETWORK' && innerCode) code = innerCode;
  const message = typeof e?.message === 'string' && e.message ? e.message : axios ? null : inner?.message;
  return new ExchangeFailure(code, (typeof message === 'string' && message) || code || 'request failed');
}
