import { clip } from '../domain/text-and-days';
import * as E from './errors';
import { asRecord } from './json';

/** `create`, `update` (writes changing an invoice): never repeated once sent, a lost answer is `outcome_unknown`. */
export type RequestSafety = 'read' | 'write' | 'create' | 'update';

/** What an error says of its request: never the request itself, and each of `secrets` redacted. */
export interface FailureContext {
  operation: string;
  invoiceRef?: string;
  safety: RequestSafety;
  /** A creation's reference: how an unknown outcome is resolved. */
  referrer?: string;
  /** The scope a 403 names when the service does not say (default: the operation's, `OPERATION_SCOPES`). */
  scope?: string;
  secrets: readonly string[];
}

const MESSAGE_MAX = 300;

/** The scope each operation needs (§5; A10 for consumers and disputes): named in a 403 that does not say. */
export const OPERATION_SCOPES: Readonly<Record<string, string>> = {
  listInvoices: 'invoice.read',
  iterateInvoices: 'invoice.read',
  findInvoiceByReferrer: 'invoice.read',
  findInvoiceById: 'invoice.read',
  createInvoice: 'invoice.write',
  changeDueDate: 'invoice.update',
  cancelInvoice: 'invoice.update',
  addTrackingCode: 'invoice.update',
  refundInvoice: 'invoice.refund',
  listConsumers: 'consumer.read',
  listMediations: 'dispute.read',
  listChargebacks: 'dispute.read',
};

/** Each secret, and its base64 and URL-encoded forms, replaced with `[redacted]` (a service could echo one back). */
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

/** `outcome_unknown` for a write that changes an invoice (it may have happened), else `otherwise`. */
export function lostOr(
  ctx: Pick<FailureContext, 'operation' | 'safety' | 'referrer'>,
  detail: string,
  reason: E.GatewayOutcomeUnknownError['reason'],
  otherwise: E.GatewayError,
): E.GatewayError {
  if (ctx.safety !== 'create' && ctx.safety !== 'update') return otherwise;
  const what =
    ctx.safety === 'create' ? 'the invoice may exist' : `${ctx.operation} may have been carried out`;
  return new E.GatewayOutcomeUnknownError(otherwise, `${detail}; ${what}`, ctx.referrer ?? '', reason);
}

/** Anything that never left, and reads that failed transiently (a 429 only if it asks to wait at most `maxWaitMs`). */
export function retryable(err: unknown, safety: RequestSafety, maxWaitMs: number): boolean {
  if (!(err instanceof E.GatewayError)) return false;
  if (err.kind === 'network' && !err.sent) return true;
  if (safety !== 'read') return false;
  if (err instanceof E.GatewayRateLimitError)
    return err.retryAfterMs === null || err.retryAfterMs <= maxWaitMs;
  return err.kind === 'timeout' || err.kind === 'network' || err.kind === 'unavailable';
}

/** `Retry-After` (seconds or an HTTP date, counted from `now`) in milliseconds. */
export function parseRetryAfter(header: unknown, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value * 1000);
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The error for a non-2xx answer (received at `now`) or a 2xx whose body says it failed; `null` on success. */
export function errorForResponse(
  ctx: FailureContext,
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
  now: number,
): E.GatewayError | null {
  const record = asRecord(body);
  const text = (value: unknown, max: number) =>
    typeof value === 'string' ? redact(clip(value, max, '…'), ctx.secrets) : undefined;
  const serviceMessage = text(record?.message, MESSAGE_MAX);
  const base = { ...ctx, httpStatus: status, serviceCode: text(record?.code, 60), sent: true };
  const said = (what: string) => (serviceMessage ? `${what}: ${serviceMessage}` : what);

  if (status >= 200 && status < 300) {
    const unreadable = `unreadable response body (HTTP ${status})`;
    if (!record)
      return lostOr(ctx, unreadable, 'unreadable_response', new E.GatewayResponseError(base, unreadable));
    if (record.success === false || record.error === true) {
      return new E.GatewayResponseError(base, said('the service reported a failure'));
    }
    return null;
  }
  switch (status) {
    case 400:
    case 422: {
      const fields: Record<string, string[]> = {};
      for (const [field, messages] of Object.entries(asRecord(record?.errors) ?? {})) {
        const list: unknown[] = Array.isArray(messages) ? messages : [messages];
        fields[redact(field, ctx.secrets)] = list.map((m) => text(String(m), MESSAGE_MAX) as string);
      }
      const names = Object.keys(fields).join(', ');
      return new E.GatewayValidationError(base, said(names ? `invalid ${names}` : 'invalid request'), fields);
    }
    case 401:
      return new E.GatewayAuthenticationError(base, said('access token missing, unknown or expired'));
    case 403: {
      const scope = text(record?.required_scope, 60) ?? ctx.scope ?? OPERATION_SCOPES[ctx.operation] ?? null;
      return new E.GatewayScopeError(base, said(`the token lacks scope ${scope ?? '(not stated)'}`), scope);
    }
    case 404:
      return new E.GatewayNotFoundError(base, said('not found'));
    case 409: {
      const code = typeof record?.status_code === 'number' ? record.status_code : undefined;
      const where = code === undefined ? '' : ` (invoice status ${code})`;
      return new E.GatewayStateConflictError(base, said(`state conflict${where}`), code);
    }
    case 429: {
      const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
      const wait = retryAfterMs === null ? '' : `; retry after ${retryAfterMs} ms`;
      return new E.GatewayRateLimitError(base, said(`rate limited${wait}`), retryAfterMs);
    }
  }
  if (status < 500) return new E.GatewayResponseError(base, said(`unexpected HTTP ${status}`));
  const unavailable = new E.GatewayUnavailableError(base, said(`service unavailable (HTTP ${status})`));
  const failed = said(`service failed (HTTP ${status}) after receiving the request`);
  return lostOr(ctx, failed, 'server_error', unavailable);
}

/** System codes that prove the request never left. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function errorForTransportFailure(
  ctx: FailureContext,
  networkCode: string | null,
  message: string,
): E.GatewayError {
  const sent = !(networkCode && NOT_SENT_CODES.has(networkCode));
  const base = { ...ctx, sent };
  const detail = redact(clip(message, MESSAGE_MAX, '…'), ctx.secrets);
  const network = new E.GatewayNetworkError(base, `network failure: ${detail}`, networkCode);
  if (!sent) return network;
  return lostOr(ctx, `connection failed after sending the request (${detail})`, 'connection', network);
}

export function errorForTimeout(ctx: FailureContext, timeoutMs: number): E.GatewayError {
  const base = { ...ctx, sent: true };
  const timedOut = new E.GatewayTimeoutError(base, `no answer within ${timeoutMs} ms`, timeoutMs);
  return lostOr(ctx, `no answer within ${timeoutMs} ms after sending the request`, 'timeout', timedOut);
}
