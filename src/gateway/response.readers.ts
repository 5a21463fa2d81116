import type {
  AccessToken,
  Consumer,
  CredentialStatus,
  Dispute,
  Page,
  ResendWebhookResult,
  TrackingParams,
  TrackingResult,
} from './types';
import { asBool, asInt, asRecord, asText, JsonRecord, PayloadReader } from './payload.reader';

/** Readers of the non-invoice responses (A5, A7, A9, A10, §4.8). Each fails with the field's name. */

/** A list response: `<listField>` array plus `pagination` (A7). */
export function readPage<T>(
  r: PayloadReader,
  body: unknown,
  listField: string,
  readItem: (item: unknown, path: string) => T,
): Page<T> {
  const top = r.record(body, 'body');
  const list = top[listField];
  if (!Array.isArray(list)) r.fail(listField, 'not a list');
  const pagination = r.record(top.pagination, 'pagination');
  const int = (key: string) => asInt(pagination[key]) ?? r.fail(`pagination.${key}`, 'not an integer');
  return {
    items: list.map((item, i) => readItem(item, `${listField}[${i}]`)),
    page: int('page'),
    limit: int('limit'),
    total: int('total'),
    pages: int('pages'),
  };
}

export function readConsumer(r: PayloadReader, item: unknown, path: string): Consumer {
  const c = r.record(item, path);
  return {
    id: r.requiredText(c.id, `${path}.id`),
    name: asText(c.name),
    document: asText(c.document),
    email: asText(c.email),
    createdAt: asText(c.created_at),
    raw: item,
  };
}

export function readDispute(r: PayloadReader, item: unknown, path: string): Dispute {
  const d = r.record(item, path);
  return {
    id: r.requiredText(d.id, `${path}.id`),
    invoiceId: asText(d.invoice_id),
    status: asText(d.status),
    reason: asText(d.reason),
    amountCents: r.money(d.amount, `${path}.amount`),
    createdAt: asText(d.created_at),
    raw: item,
  };
}

/** A9 response; what the service leaves out is taken from the request (a custom `trackingBody` may differ). */
export function readTracking(r: PayloadReader, body: unknown, sent: TrackingParams): TrackingResult {
  const t = asRecord(r.record(body, 'body').tracking) ?? {};
  return {
    invoiceId: asText(t.invoice_id) ?? sent.invoiceId,
    code: asText(t.code) ?? sent.code,
    carrier: asText(t.carrier) ?? sent.carrier ?? null,
    url: asText(t.url) ?? sent.url ?? null,
    createdAt: asText(t.created_at),
  };
}

function scopesOf(r: PayloadReader, top: JsonRecord): string[] {
  if (top.scopes === undefined || top.scopes === null) return [];
  if (!Array.isArray(top.scopes) || !top.scopes.every((s) => typeof s === 'string'))
    r.fail('scopes', 'not a list of strings');
  return top.scopes as string[];
}

export function readAccessToken(r: PayloadReader, body: unknown): AccessToken {
  const top = r.record(body, 'body');
  return {
    accessToken: r.requiredText(top.access_token, 'access_token'),
    tokenType: asText(top.token_type) ?? 'Bearer',
    expiresIn: asInt(top.expires_in),
    scopes: scopesOf(r, top),
  };
}

export function readCredentialStatus(r: PayloadReader, body: unknown): CredentialStatus {
  const top = r.record(body, 'body');
  return {
    active: asBool(top.active) ?? r.fail('active', 'not a boolean'),
    scopes: scopesOf(r, top),
    expiresAt: asText(top.expires_at),
  };
}

export function readResendResult(r: PayloadReader, body: unknown): ResendWebhookResult {
  const top = r.record(body, 'body');
  const sent = asRecord(top.sent) ?? {};
  const responses = Array.isArray(sent.responses) ? sent.responses : [];
  return {
    success: asBool(top.success) ?? false,
    event: asText(sent.event),
    total: asInt(sent.total) ?? responses.length,
    responses: responses.map((item) => {
      const entry = asRecord(item) ?? {};
      const response = asRecord(entry.response) ?? {};
      return {
        events: asText(entry.events),
        webhook: asText(entry.webhook),
        action: asText(response.action),
        httpStatus: asInt(asRecord(response.details)?.http),
        update: asText(entry.update) ?? asText(response.update),
        version: asText(entry.version) ?? asText(response.version),
      };
    }),
  };
}
