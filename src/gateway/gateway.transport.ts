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
import { DEFAULT_RETRY, OPERATION_SCOPES } from './constants';
import {
  errorForResponse,
  errorForTimeout,
  errorForTransportFailure,
  FailureContext,
  redact,
  RequestSafety,
} from './error.mapper';
import { GatewayError, GatewayRateLimitError } from './errors';
import type { GatewayClientOptions, GatewayConnection } from './gateway.options';
import { ExchangeFailure, type HttpExchange } from './http-exchange';
import { observeServiceCall } from '../observability/otel';

export interface RequestPlan {
  operation: string;
  invoiceRef?: string;
  /** Creation only: resolves an unknown outcome. */
  referrer?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'COPY';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  safety: RequestSafety;
  /** Named in a 403 that does not say (default: `OPERATION_SCOPES`). */
  scope?: string;
  /** Basic credentials instead of the bearer token (authenticate, A5). */
  basic?: { user: string; password: string };
  /** More strings to keep out of errors and logs. */
  secrets?: string[];
  /** Statuses handed back instead of becoming errors. */
  passStatuses?: number[];
}

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** Sends requests with per-request timeouts, retrying safe ones only; every failure becomes a `GatewayError`. */
export class GatewayTransport {
  private readonly retrySettings: Required<NonNullable<GatewayClientOptions['retry']>>;

  constructor(
    private readonly exchange: HttpExchange,
    private readonly logger: LoggerService,
    retrySettings: GatewayClientOptions['retry'],
    private readonly timeouts: { readMs: number; createMs: number; defaultMs: number },
  ) {
    this.retrySettings = { ...DEFAULT_RETRY, ...retrySettings };
  }

  async send(conn: GatewayConnection, request: RequestPlan): Promise<HttpAnswer> {
    const { readMs, createMs, defaultMs } = this.timeouts;
    const timeoutMs = request.safety === 'read' ? readMs : request.safety === 'create' ? createMs : defaultMs;
    const plan = { ...request, scope: request.scope ?? OPERATION_SCOPES[request.operation], timeoutMs };
    const secrets = [conn.accessToken, ...(plan.secrets ?? [])];
    if (plan.basic) secrets.push(plan.basic.password, `${plan.basic.user}:${plan.basic.password}`);
    const ctx: FailureContext = { ...plan, secrets };
    const safe = handleWhen((err) => this.retryable(err, plan.safety));
    const policy = retry(safe, {
      maxAttempts: Math.max(0, this.retrySettings.maxAttempts - 1),
      backoff: new DelegateBackoff((context: IRetryBackoffContext<unknown>) => this.delayFor(context)),
    });
    policy.onRetry((event) => {
      const reason = 'error' in event && event.error instanceof Error ? event.error.message : 'failure';
      this.logger.warn(
        `${plan.operation}: attempt ${event.attempt} failed (${reason}); retrying in ${event.delay} ms`,
      );
    });
    return observeServiceCall(conn.baseUrl, plan.operation, () =>
      policy.execute(() => this.attempt(conn, plan, ctx)),
    );
  }

  private async attempt(
    conn: GatewayConnection,
    plan: RequestPlan & { timeoutMs: number },
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

  /** Anything that never left, and reads that failed transiently. */
  private retryable(err: unknown, safety: RequestSafety): boolean {
    if (!(err instanceof GatewayError)) return false;
    if (err.kind === 'network' && !err.sent) return true;
    if (safety !== 'read') return false;
    if (err instanceof GatewayRateLimitError) {
      return err.retryAfterMs === null || err.retryAfterMs <= this.retrySettings.maxRetryAfterMs;
    }
    return err.kind === 'timeout' || err.kind === 'network' || err.kind === 'unavailable';
  }

  /** A 429's `Retry-After`, else capped exponential backoff with equal jitter. */
  private delayFor(context: IRetryBackoffContext<unknown>): number {
    const err = 'error' in context.result ? context.result.error : undefined;
    if (err instanceof GatewayRateLimitError && err.retryAfterMs !== null) return err.retryAfterMs;
    const { initialDelayMs, maxDelayMs } = this.retrySettings;
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** (context.attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}
