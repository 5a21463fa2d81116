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
import { clip } from '../core/text-bounds';

/**
 * Turns what the service answered (or failed to answer) into the error hierarchy, scrubbing secrets from every text
 * taken from the wire: a service could echo a token back in an error message.
 */

/**
 * How a request may be repeated; decides retries and what a failure after sending means. `create` and `update`
 * (a write that changes an invoice: refund, cancel, due-date change, tracking code) are never repeated once sent,
 * and a lost answer to one of them is `outcome_unknown`, never a failure: the service may have acted.
 */
export type RequestSafety = 'read' | 'write' | 'create' | 'update';

/** Writes whose lost answer means "may have happened". */
function changesInvoice(safety: RequestSafety): boolean {
  return safety === 'create' || safety === 'update';
}

/** What a write "may have" done, for the unknown-outcome message. */
function mayHave(ctx: FailureContext): string {
  return ctx.safety === 'create' ? 'the invoice may exist' : `${ctx.operation} may have been carried out`;
}

export interface FailureContext extends Omit<GatewayErrorContext, 'sent' | 'httpStatus' | 'serviceCode'> {
  safety: RequestSafety;
  /** Strings that must never appear in an error: access token, client secret, webhook token... */
  secrets: readonly string[];
  /** For creation: the referrer to resolve an unknown outcome with. */
  referrer?: string;
  /** Scope the spec names for the operation, used when a 403 does not say. */
  scope?: string;
}

const REDACTED = '[redacted]';

/** Most characters kept of one message from the service (its own words, shown in our errors). */
const MESSAGE_MAX = 300;

/** Replaces every occurrence of each secret (and of its base64 form) with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of [secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret)]) {
      out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `errors` of an A6 body as a clean field → messages map. */
function readFields(body: Record<string, unknown>, secrets: readonly string[]): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  if (!isRecord(body.errors)) return fields;
  for (const [field, messages] of Object.entries(body.errors)) {
    const list = Array.isArray(messages) ? messages : [messages];
    fields[redact(field, secrets)] = list.map((m) => redact(clip(String(m), MESSAGE_MAX, '…'), secrets));
  }
  return fields;
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

/**
 * The error for a non-2xx answer, or for a 2xx whose body says it failed. Returns `null` for a successful answer.
 */
export function errorForResponse(
  ctx: FailureContext,
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
): GatewayError | null {
  const record = isRecord(body) ? body : null;
  const serviceCode =
    record && typeof record.code === 'string' ? redact(clip(record.code, 60, '…'), ctx.secrets) : undefined;
  const serviceMessage =
    record && typeof record.message === 'string' ? redact(clip(record.message, MESSAGE_MAX, '…'), ctx.secrets) : undefined;
  const base = {
    operation: ctx.operation,
    invoiceRef: ctx.invoiceRef,
    httpStatus: status,
    serviceCode,
    sent: true,
  };
  const said = (what: string) => (serviceMessage ? `${what}: ${serviceMessage}` : what);

  if (status >= 200 && status < 300) {
    if (!record && changesInvoice(ctx.safety)) {
      const detail = `unreadable response body (HTTP ${status}); ${mayHave(ctx)}`;
      return new GatewayOutcomeUnknownError(base, detail, ctx.referrer ?? '', 'unreadable_response');
    }
    if (!record) return new GatewayResponseError(base, `unreadable response body (HTTP ${status})`);
    if (record.success === false || record.error === true) {
      return new GatewayResponseError(base, said('the service reported a failure'));
    }
    return null;
  }
  switch (status) {
    case 400:
    case 422: {
      const fields = record ? readFields(record, ctx.secrets) : {};
      const names = Object.keys(fields);
      const summary = names.length ? `invalid ${names.join(', ')}` : 'invalid request';
      return new GatewayValidationError(base, said(summary), fields);
    }
    case 401:
      return new GatewayAuthenticationError(base, said('access token missing, unknown or expired'));
    case 403: {
      const scope =
        record && typeof record.required_scope === 'string'
          ? redact(clip(record.required_scope, 60, '…'), ctx.secrets)
          : (ctx.scope ?? null);
      return new GatewayScopeError(base, said(`the token lacks scope ${scope ?? '(not stated)'}`), scope);
    }
    case 404:
      return new GatewayNotFoundError(base, said('not found'));
    case 409: {
      const code = record && typeof record.status_code === 'number' ? record.status_code : undefined;
      const where = code === undefined ? '' : ` (invoice status ${code})`;
      return new GatewayStateConflictError(base, said(`state conflict${where}`), code);
    }
    case 429: {
      const retryAfterMs = parseRetryAfter(headers['retry-after']);
      const wait = retryAfterMs === null ? '' : `; retry after ${retryAfterMs} ms`;
      return new GatewayRateLimitError(base, said(`rate limited${wait}`), retryAfterMs);
    }
  }
  if (status >= 500) {
    if (changesInvoice(ctx.safety)) {
      return new GatewayOutcomeUnknownError(
        base,
        said(`service failed (HTTP ${status}) after receiving the request; ${mayHave(ctx)}`),
        ctx.referrer ?? '',
        'server_error',
      );
    }
    return new GatewayUnavailableError(base, said(`service unavailable (HTTP ${status})`));
  }
  return new GatewayResponseError(base, said(`unexpected HTTP ${status}`));
}

/** System codes that prove the request never left: nothing reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The error for a request that got no HTTP answer (thrown by the transport). */
export function errorForTransportFailure(
  ctx: FailureContext,
  networkCode: string | null,
  message: string,
): GatewayError {
  const sent = !(networkCode && NOT_SENT_CODES.has(networkCode));
  const base = { operation: ctx.operation, invoiceRef: ctx.invoiceRef, sent };
  const detail = redact(clip(message, MESSAGE_MAX, '…'), ctx.secrets);
  if (sent && changesInvoice(ctx.safety)) {
    return new GatewayOutcomeUnknownError(
      base,
      `connection failed after sending the request (${detail}); ${mayHave(ctx)}`,
      ctx.referrer ?? '',
      'connection',
    );
  }
  return new GatewayNetworkError(base, `network failure: ${detail}`, networkCode);
}

/** The error for a request that got no answer within `timeoutMs`. */
export function errorForTimeout(ctx: FailureContext, timeoutMs: number): GatewayError {
  const base = { operation: ctx.operation, invoiceRef: ctx.invoiceRef, sent: true };
  if (changesInvoice(ctx.safety)) {
    return new GatewayOutcomeUnknownError(
      base,
      `no answer within ${timeoutMs} ms after sending the request; ${mayHave(ctx)}`,
      ctx.referrer ?? '',
      'timeout',
    );
  }
  return new GatewayTimeoutError(base, `no answer within ${timeoutMs} ms`, timeoutMs);
}
