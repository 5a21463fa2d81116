import type { LoggerService } from '@nestjs/common';
import {
  DelegateBackoff,
  handleWhen,
  IRetryBackoffContext,
  retry,
  TaskCancelledError,
  timeout,
  TimeoutStrategy,
} from 'cockatiel';
import { clip } from '../core/text-bounds';
import { DEFAULT_RETRY } from './constants';
import {
  GatewayAuthenticationError,
  GatewayError,
  GatewayErrorContext,
  GatewayNetworkError,
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayRateLimitError,
  GatewayResponseError,
  GatewayScopeError,
  GatewayStateConflictError,
  GatewayTimeoutError,
  GatewayUnavailableError,
  GatewayValidationError,
} from './errors';
import type { GatewayClientOptions, GatewayConnection } from './gateway.options';
import { ExchangeFailure, type HttpExchange } from './http-exchange';

/**
 * How a request may be repeated; decides retries and what a failure after sending means. `create` and `update`
 * (a write that changes an invoice: refund, cancel, due-date change, tracking code) are never repeated once sent,
 * and a lost answer to one of them is `outcome_unknown`, never a failure: the service may have acted.
 */
export type RequestSafety = 'read' | 'write' | 'create' | 'update';

/** One HTTP exchange the client wants, and how safe it is to repeat. */
export interface RequestPlan {
  operation: string;
  invoiceRef?: string;
  /** Creation only: the referrer that resolves an unknown outcome. */
  referrer?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'COPY';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  safety: RequestSafety;
  timeoutMs: number;
  /** The spec's scope for the operation, named in a 403 that does not say. */
  scope?: string;
  /** Basic credentials instead of the bearer token (authenticate, A5). */
  basic?: { user: string; password: string };
  /** More strings to keep out of errors and logs (client secret, webhook token). */
  secrets?: string[];
  /** Statuses handed back to the caller instead of becoming errors (the webhook validation's 404). */
  passStatuses?: number[];
}

/** What a failure is judged by: the request, and every secret that must not appear in its error. */
export type FailureContext = Pick<
  RequestPlan,
  'operation' | 'invoiceRef' | 'safety' | 'referrer' | 'scope'
> & {
  secrets: readonly string[];
};

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/**
 * Sends requests through an {@link HttpExchange} with per-request timeouts and, for safe requests only, retries with
 * exponential backoff and jitter (cockatiel). Every failure becomes a `GatewayError` built here, its texts scrubbed
 * of the request's secrets (a service could echo a token back).
 */
export class GatewayTransport {
  private readonly retrySettings: Required<NonNullable<GatewayClientOptions['retry']>>;

  constructor(
    private readonly exchange: HttpExchange,
    private readonly logger: LoggerService,
    retrySettings: GatewayClientOptions['retry'] = {},
  ) {
    this.retrySettings = { ...DEFAULT_RETRY, ...retrySettings };
  }

  async send(conn: GatewayConnection, plan: RequestPlan): Promise<HttpAnswer> {
    const secrets = [conn.accessToken, ...(plan.secrets ?? [])];
    if (plan.basic) secrets.push(plan.basic.password, `${plan.basic.user}:${plan.basic.password}`);
    const ctx: FailureContext = { ...plan, secrets };
    const policy = retry(
      handleWhen((err) => this.retryable(err, plan.safety)),
      {
        maxAttempts: Math.max(0, this.retrySettings.maxAttempts - 1),
        backoff: new DelegateBackoff((context: IRetryBackoffContext<unknown>) => this.delayFor(context)),
      },
    );
    policy.onRetry((event) => {
      const reason = 'error' in event && event.error instanceof Error ? event.error.message : 'failure';
      this.logger.warn(
        `${plan.operation}: attempt ${event.attempt} failed (${reason}); retrying in ${event.delay} ms`,
      );
    });
    return policy.execute(() => this.attempt(conn, plan, ctx));
  }

  private async attempt(
    conn: GatewayConnection,
    plan: RequestPlan,
    ctx: FailureContext,
  ): Promise<HttpAnswer> {
    const started = Date.now();
    const query = plan.query
      ? `?${new URLSearchParams(Object.entries(plan.query).map(([k, v]): [string, string] => [k, String(v)]))}`
      : '';
    this.logger.debug?.(redact(`${plan.operation}: → ${plan.method} ${plan.path}${query}`, ctx.secrets));
    const authorization = plan.basic
      ? `Basic ${Buffer.from(`${plan.basic.user}:${plan.basic.password}`).toString('base64')}`
      : `Bearer ${conn.accessToken}`;
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: authorization };
    if (plan.body !== undefined) headers['Content-Type'] = 'application/json';
    const body = plan.body === undefined ? undefined : JSON.stringify(plan.body);
    const url = `${conn.baseUrl}${plan.path}${query}`;
    try {
      // The answer is read whole when the exchange returns: aborting then would only build an AbortError for nothing.
      const policy = timeout(plan.timeoutMs, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false });
      const answer = await policy.execute(async ({ signal }) => {
        let res: { status: number; data: unknown; headers: Record<string, unknown> };
        try {
          res = await this.exchange({ method: plan.method, url, headers, body, signal });
        } catch (err) {
          const code = err instanceof ExchangeFailure ? err.code : null;
          throw errorForTransportFailure(ctx, code, err instanceof Error ? err.message : 'request failed');
        }
        const failure = plan.passStatuses?.includes(res.status)
          ? null
          : errorForResponse(ctx, res.status, res.data, res.headers);
        if (failure) throw failure;
        return { status: res.status, body: res.data };
      });
      this.logger.debug?.(`${plan.operation}: ← ${answer.status} in ${Date.now() - started} ms`);
      return answer;
    } catch (err) {
      const error = err instanceof TaskCancelledError ? errorForTimeout(ctx, plan.timeoutMs) : err;
      if (error instanceof GatewayError) {
        this.logger.debug?.(`${plan.operation}: ✗ ${error.kind} after ${Date.now() - started} ms`);
      }
      throw error;
    }
  }

  /** Retry only what is safe: anything that never left, and reads that failed transiently. */
  private retryable(err: unknown, safety: RequestSafety): boolean {
    if (err instanceof GatewayNetworkError && !err.sent) return true;
    if (safety !== 'read') return false;
    if (err instanceof GatewayRateLimitError) {
      return err.retryAfterMs === null || err.retryAfterMs <= this.retrySettings.maxRetryAfterMs;
    }
    return (
      err instanceof GatewayTimeoutError ||
      err instanceof GatewayNetworkError ||
      err instanceof GatewayUnavailableError
    );
  }

  /** `Retry-After` when a 429 said; else exponential from `initialDelayMs`, capped, with equal jitter. */
  private delayFor(context: IRetryBackoffContext<unknown>): number {
    const err = 'error' in context.result ? context.result.error : undefined;
    if (err instanceof GatewayRateLimitError && err.retryAfterMs !== null) return err.retryAfterMs;
    const { initialDelayMs, maxDelayMs } = this.retrySettings;
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** (context.attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}

/** Most characters kept of one message from the service (its own words, shown in our errors). */
const MESSAGE_MAX = 300;

/** Replaces every occurrence of each secret (and of its base64 and URL-encoded forms) with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of [secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret)]) {
      out = out.split(form).join('[redacted]');
    }
  }
  return out;
}

/**
 * The error of a write that changes an invoice whose answer was lost after sending (`detail` without the ending
 * this adds): it may have happened. Every other request gets `otherwise`.
 */
export function lostOr(
  ctx: Pick<FailureContext, 'operation' | 'safety' | 'referrer'>,
  base: GatewayErrorContext,
  detail: string,
  reason: GatewayOutcomeUnknownError['reason'],
  otherwise: () => GatewayError,
): GatewayError {
  if (ctx.safety !== 'create' && ctx.safety !== 'update') return otherwise();
  const what =
    ctx.safety === 'create' ? 'the invoice may exist' : `${ctx.operation} may have been carried out`;
  return new GatewayOutcomeUnknownError(base, `${detail}; ${what}`, ctx.referrer ?? '', reason);
}

/** Parses `Retry-After` (seconds or an HTTP date) to milliseconds. */
export function parseRetryAfter(header: unknown, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value * 1000);
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The error for a non-2xx answer, or for a 2xx whose body says it failed; `null` for a successful answer. */
export function errorForResponse(
  ctx: FailureContext,
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
): GatewayError | null {
  const record =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null;
  const text = (value: unknown, max: number) =>
    typeof value === 'string' ? redact(clip(value, max, '…'), ctx.secrets) : undefined;
  const serviceMessage = text(record?.message, MESSAGE_MAX);
  const base = { ...ctx, httpStatus: status, serviceCode: text(record?.code, 60), sent: true };
  const said = (what: string) => (serviceMessage ? `${what}: ${serviceMessage}` : what);

  if (status >= 200 && status < 300) {
    const unreadable = `unreadable response body (HTTP ${status})`;
    if (!record)
      return lostOr(
        ctx,
        base,
        unreadable,
        'unreadable_response',
        () => new GatewayResponseError(base, unreadable),
      );
    if (record.success === false || record.error === true) {
      return new GatewayResponseError(base, said('the service reported a failure'));
    }
    return null;
  }
  switch (status) {
    case 400:
    case 422: {
      const fields: Record<string, string[]> = {};
      const errors = record?.errors;
      if (typeof errors === 'object' && errors !== null && !Array.isArray(errors)) {
        for (const [field, messages] of Object.entries(errors)) {
          const list: unknown[] = Array.isArray(messages) ? messages : [messages];
          fields[redact(field, ctx.secrets)] = list.map((m) => text(String(m), MESSAGE_MAX) as string);
        }
      }
      const names = Object.keys(fields);
      return new GatewayValidationError(
        base,
        said(names.length ? `invalid ${names.join(', ')}` : 'invalid request'),
        fields,
      );
    }
    case 401:
      return new GatewayAuthenticationError(base, said('access token missing, unknown or expired'));
    case 403: {
      const scope = text(record?.required_scope, 60) ?? ctx.scope ?? null;
      return new GatewayScopeError(base, said(`the token lacks scope ${scope ?? '(not stated)'}`), scope);
    }
    case 404:
      return new GatewayNotFoundError(base, said('not found'));
    case 409: {
      const code = typeof record?.status_code === 'number' ? record.status_code : undefined;
      const where = code === undefined ? '' : ` (invoice status ${code})`;
      return new GatewayStateConflictError(base, said(`state conflict${where}`), code);
    }
    case 429: {
      const retryAfterMs = parseRetryAfter(headers['retry-after']);
      const wait = retryAfterMs === null ? '' : `; retry after ${retryAfterMs} ms`;
      return new GatewayRateLimitError(base, said(`rate limited${wait}`), retryAfterMs);
    }
  }
  if (status < 500) return new GatewayResponseError(base, said(`unexpected HTTP ${status}`));
  return lostOr(
    ctx,
    base,
    said(`service failed (HTTP ${status}) after receiving the request`),
    'server_error',
    () => new GatewayUnavailableError(base, said(`service unavailable (HTTP ${status})`)),
  );
}

/** System codes that prove the request never left: nothing reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The error for a request that got no HTTP answer. */
export function errorForTransportFailure(
  ctx: FailureContext,
  networkCode: string | null,
  message: string,
): GatewayError {
  const sent = !(networkCode && NOT_SENT_CODES.has(networkCode));
  const base = { ...ctx, sent };
  const detail = redact(clip(message, MESSAGE_MAX, '…'), ctx.secrets);
  const network = () => new GatewayNetworkError(base, `network failure: ${detail}`, networkCode);
  if (!sent) return network();
  return lostOr(ctx, base, `connection failed after sending the request (${detail})`, 'connection', network);
}

/** The error for a request that got no answer within `timeoutMs`. */
export function errorForTimeout(ctx: FailureContext, timeoutMs: number): GatewayError {
  const base = { ...ctx, sent: true };
  return lostOr(
    ctx,
    base,
    `no answer within ${timeoutMs} ms after sending the request`,
    'timeout',
    () => new GatewayTimeoutError(base, `no answer within ${timeoutMs} ms`, timeoutMs),
  );
}
