import type {
  AccessToken,
  Consumer,
  CredentialStatus,
  Dispute,
  Invoice,
  Page,
  ResendWebhookResult,
  TrackingParams,
  TrackingResult,
} from './types';
import { asBool, asInt, asRecord, asText, JsonRecord, PayloadReader } from './payload.reader';
import { normalizeInvoice } from './invoice.normalizer';
import {
  valueAt,
  WireAuthenticate,
  WireCredentialStatus,
  WireListProfile,
  WireProfile,
} from './wire-profile';

export function invoiceAnswer(r: PayloadReader, answer: { body: unknown }, profile: WireProfile): Invoice {
  return normalizeInvoice(answer.body, r.operation, { codes: profile.codes });
}

/** A list answer read as the profile says (A7); `pages` derived from `total` when not sent. */
export function readPage<T>(
  r: PayloadReader,
  body: unknown,
  shape: WireListProfile,
  itemsPath: string,
  asked: { page: number; limit: number },
  readItem: (item: unknown, path: string) => T,
): Page<T> {
  const top = r.record(body, 'body');
  const list = valueAt(top, itemsPath);
  if (!Array.isArray(list)) r.fail(itemsPath || 'body', 'not a list');
  const counter = (path: string | null): number | null => {
    if (path === null) return null;
    const value = valueAt(top, path);
    if (value === undefined || value === null) return null;
    return asInt(value) ?? r.fail(path, 'not an integer');
  };
  const limit = counter(shape.limit) ?? asked.limit;
  const total = counter(shape.total);
  let pages = counter(shape.pages);
  if (pages === null && total !== null) pages = limit > 0 ? Math.ceil(total / limit) : 0;
  return {
    items: list.map((item, i) => readItem(item, `${itemsPath}[${i}]`)),
    page: counter(shape.page) ?? asked.page,
    limit,
    total,
    pages,
  };
}

/** By `pages` when the service says it, else a page shorter than asked. */
export function isLastPage(page: Page<unknown>): boolean {
  if (page.items.length === 0) return true;
  return page.pages !== null ? page.page >= page.pages : page.items.length < page.limit;
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

/** A9 answer; what it leaves out is taken from the request. */
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

/** The tracking code at `path` of an `Invoice.raw`. */
export function trackingCodeOf(raw: unknown, path: string): string | null {
  const top = asRecord(raw);
  const invoice = asRecord(top?.invoice) ?? asRecord(top?.fatura) ?? top;
  return asText(valueAt(invoice, path));
}

function scopesAt(r: PayloadReader, top: JsonRecord, path: string | null): string[] {
  const scopes = path === null ? undefined : valueAt(top, path);
  if (scopes === undefined || scopes === null) return [];
  if (typeof scopes === 'string') return scopes.split(/[\s,]+/).filter(Boolean);
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string'))
    r.fail(path ?? 'scopes', 'not a list of strings');
  return scopes as string[];
}

export function readAccessToken(
  r: PayloadReader,
  body: unknown,
  answer: WireAuthenticate['answer'],
): AccessToken {
  const top = r.record(body, 'body');
  const at = (path: string | null) => (path === null ? undefined : valueAt(top, path));
  return {
    accessToken: r.requiredText(at(answer.accessToken), answer.accessToken),
    tokenType: asText(at(answer.tokenType)) ?? 'Bearer',
    expiresIn: asInt(at(answer.expiresIn)),
    scopes: scopesAt(r, top, answer.scopes),
  };
}

export function readCredentialStatus(
  r: PayloadReader,
  body: unknown,
  answer: WireCredentialStatus['answer'],
): CredentialStatus {
  const top = r.record(body, 'body');
  const active = answer.active === null ? true : asBool(valueAt(top, answer.active));
  return {
    active: active ?? r.fail(answer.active ?? 'active', 'not a boolean'),
    scopes: scopesAt(r, top, answer.scopes),
    expiresAt: answer.expiresAt === null ? null : asText(valueAt(top, answer.expiresAt)),
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
