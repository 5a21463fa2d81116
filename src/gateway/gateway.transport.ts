import type { LoggerService } from '@nestjs/common';
import type { HttpService } from '@nestjs/axios';
import { isAxiosError, type AxiosResponse } from 'axios';
import {
  DelegateBackoff,
  handleWhen,
  IRetryBackoffContext,
  retry,
  TaskCancelledError,
  timeout,
  TimeoutStrategy,
} from 'cockatiel';
import { firstValueFrom } from 'rxjs';
import { DEFAULT_RETRY } from './constants';
import {
  errorForResponse,
  errorForTimeout,
  errorForTransportFailure,
  FailureContext,
  redact,
  RequestSafety,
} from './error.mapper';
import {
  GatewayError,
  GatewayNetworkError,
  GatewayRateLimitError,
  GatewayTimeoutError,
  GatewayUnavailableError,
} from './errors';
import type { GatewayClientOptions, GatewayConnection } from './gateway.options';

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

export interface HttpAnswer {
  status: number;
  body: unknown;
}

type RetrySettings = Required<NonNullable<GatewayClientOptions['retry']>>;

/**
 * Sends requests over `@nestjs/axios`' `HttpService` with per-request timeouts and, for safe requests only, retries
 * with exponential backoff and jitter (cockatiel). Every failure becomes a `GatewayError` built here: axios' error,
 * config and request objects (which hold the `Authorization` header) are dropped on the spot.
 */
export class GatewayTransport {
  private readonly retrySettings: RetrySettings;

  constructor(
    private readonly http: HttpService,
    private readonly logger: LoggerService,
    retrySettings: GatewayClientOptions['retry'] = {},
  ) {
    this.retrySettings = { ...DEFAULT_RETRY, ...retrySettings };
  }

  async send(conn: GatewayConnection, plan: RequestPlan): Promise<HttpAnswer> {
    const secrets = [conn.accessToken, ...(plan.secrets ?? [])];
    if (plan.basic) secrets.push(plan.basic.password, `${plan.basic.user}:${plan.basic.password}`);
    const ctx: FailureContext = {
      operation: plan.operation,
      invoiceRef: plan.invoiceRef,
      safety: plan.safety,
      secrets,
      referrer: plan.referrer,
      scope: plan.scope,
    };
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
    const target = `${plan.method} ${plan.path}${plan.query ? `?${new URLSearchParams(stringify(plan.query))}` : ''}`;
    this.logger.debug?.(redact(`${plan.operation}: → ${target}`, ctx.secrets));
    try {
      const answer = await timeout(plan.timeoutMs, TimeoutStrategy.Aggressive).execute(async ({ signal }) => {
        let res: AxiosResponse<unknown>;
        try {
          res = await firstValueFrom(this.http.request<unknown>(this.config(conn, plan, signal)));
        } catch (err) {
          throw transportFailure(ctx, err);
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

  private config(conn: GatewayConnection, plan: RequestPlan, signal: AbortSignal) {
    const authorization = plan.basic
      ? `Basic ${Buffer.from(`${plan.basic.user}:${plan.basic.password}`).toString('base64')}`
      : `Bearer ${conn.accessToken}`;
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: authorization };
    if (plan.body !== undefined) headers['Content-Type'] = 'application/json';
    return {
      method: plan.method,
      url: `${conn.baseUrl}${plan.path}`,
      params: plan.query,
      // OPTIONS, COPY and DELETE carry JSON bodies too (§4.4, §4.7, §4.8): axios sends `data` whatever the method.
      data: plan.body === undefined ? undefined : JSON.stringify(plan.body),
      headers,
      signal,
      // Statuses are mapped here, not thrown by axios; redirects are not followed (they could carry the token away).
      validateStatus: () => true,
      maxRedirects: 0,
      responseType: 'json' as const,
    };
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

function stringify(query: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)]));
}

/** Reads only the system code and message of a transport failure; the axios error itself is dropped here. */
function transportFailure(ctx: FailureContext, err: unknown): GatewayError {
  let code: string | null = null;
  let message = 'request failed';
  if (isAxiosError(err)) {
    code = err.code ?? null;
    const cause = err.cause as { code?: unknown } | undefined;
    if ((!code || code === 'ERR_NETWORK') && typeof cause?.code === 'string') code = cause.code;
    message = err.message || code || message;
  } else if (err instanceof Error) {
    const withCode = err as Error & { code?: unknown };
    code = typeof withCode.code === 'string' ? withCode.code : null;
    message = err.message || message;
  }
  return errorForTransportFailure(ctx, code, message);
}
