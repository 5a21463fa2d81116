import { GatewayResponseError } from './errors';
import {
  asBool,
  asInt,
  asRecord,
  asText,
  exceedsJsonDepth,
  type JsonRecord,
  MAX_JSON_DEPTH,
  valueAt,
} from './json';
import { Cents, ImplausibleAmountError, MoneyFormatError, serviceAmountToCents } from './money';
import type * as T from './types';
import type { WireAuthenticate, WireCredentialStatus, WireListProfile } from './wire-profile';

/** Readers of the service's answers. Strict reading (identifiers, status, money): a malformed field is a `GatewayResponseError` naming it. */
export class PayloadReader {
  constructor(readonly operation: string) {}

  fail(path: string, problem: string, implausibleAmount = false): never {
    const context = { operation: this.operation, sent: true };
    throw new GatewayResponseError(context, `unreadable ${path}: ${problem}`, implausibleAmount);
  }

  record(value: unknown, path: string): JsonRecord {
    return asRecord(value) ?? this.fail(path, 'not an object');
  }

  /** A whole body from outside: an object nested at most {@link MAX_JSON_DEPTH} levels. */
  outerRecord(value: unknown, path: string): JsonRecord {
    const record = this.record(value, path);
    return exceedsJsonDepth(record) ? this.fail(path, `nested deeper than ${MAX_JSON_DEPTH} levels`) : record;
  }

  requiredText(value: unknown, path: string): string {
    const text = asText(value);
    if (text === null || text.trim() === '') this.fail(path, 'missing');
    return text;
  }

  /** Cents; absent or `""` → `null`; anything not exactly cents, negative or absurd fails. */
  money(value: unknown, path: string): Cents | null {
    if (value === null || value === undefined || value === '') return null;
    if (typeof value !== 'number' && typeof value !== 'string') this.fail(path, 'not an amount');
    try {
      return serviceAmountToCents(value);
    } catch (err) {
      if (err instanceof MoneyFormatError)
        this.fail(path, err.message, err instanceof ImplausibleAmountError);
      throw err;
    }
  }
}

/** A list answer read as the profile says (A7); `pages` derived from `total` when not sent. */
export function readPage<Item>(
  r: PayloadReader,
  body: unknown,
  shape: WireListProfile,
  itemsPath: string,
  asked: { page: number; limit: number },
  readItem: (item: unknown, path: string) => Item,
): T.Page<Item> {
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
export function isLastPage(page: T.Page<unknown>): boolean {
  if (page.items.length === 0) return true;
  return page.pages !== null ? page.page >= page.pages : page.items.length < page.limit;
}

/** A field's wire name: snake_case, money without its `Cents` (`amountCents` → `amount`). */
export const wireName = (key: string) =>
  key.replace(/Cents$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `keys` read from `o` by their wire names: `id` required, `…Cents` as money, the rest as text. */
function fields(r: PayloadReader, o: JsonRecord, keys: string[], path: string): JsonRecord {
  const out: JsonRecord = {};
  for (const key of keys) {
    const wire = wireName(key);
    if (key === 'id') out[key] = r.requiredText(o[wire], `${path}.${wire}`);
    else if (key.endsWith('Cents')) out[key] = r.money(o[wire], `${path}.${wire}`);
    else out[key] = asText(o[wire]);
  }
  return out;
}

/** A reader of a list's items: `keys` (space-separated) read by `fields`, the item itself kept as `raw`. */
function itemReader<Item>(keys: string) {
  return (r: PayloadReader, item: unknown, path: string): Item => {
    const read = fields(r, r.record(item, path), keys.split(' '), path);
    return { ...read, raw: item } as Item;
  };
}

export const readConsumer = itemReader<T.Consumer>('id name document email createdAt');
export const readDispute = itemReader<T.Dispute>('id invoiceId status reason amountCents createdAt');

/** A9 answer; what it leaves out is taken from the request. */
export function readTracking(r: PayloadReader, body: unknown, sent: T.TrackingParams): T.TrackingResult {
  const tracking = asRecord(r.record(body, 'body').tracking) ?? {};
  const given = ['invoiceId', 'code', 'carrier', 'url'] as const;
  const read = fields(r, tracking, [...given, 'createdAt'], 'tracking');
  for (const key of given) read[key] ??= sent[key] ?? null;
  return read as unknown as T.TrackingResult;
}

/** The tracking code at `path` of an `Invoice.raw`. */
export function trackingCodeOf(raw: unknown, path: string): string | null {
  const top = asRecord(raw);
  const invoice = asRecord(top?.invoice) ?? asRecord(top?.fatura) ?? top;
  return asText(valueAt(invoice, path));
}

function scopesAt(r: PayloadReader, top: JsonRecord, path: string | null): string[] {
  const scopes = valueAt(top, path);
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
): T.AccessToken {
  const top = r.record(body, 'body');
  return {
    accessToken: r.requiredText(valueAt(top, answer.accessToken), answer.accessToken),
    tokenType: asText(valueAt(top, answer.tokenType)) ?? 'Bearer',
    expiresIn: asInt(valueAt(top, answer.expiresIn)),
    scopes: scopesAt(r, top, answer.scopes),
  };
}

export function readCredentialStatus(
  r: PayloadReader,
  body: unknown,
  answer: WireCredentialStatus['answer'],
): T.CredentialStatus {
  const top = r.record(body, 'body');
  const active = answer.active === null ? true : asBool(valueAt(top, answer.active));
  return {
    active: active ?? r.fail(answer.active ?? 'active', 'not a boolean'),
    scopes: scopesAt(r, top, answer.scopes),
    expiresAt: asText(valueAt(top, answer.expiresAt)),
  };
}

export function readResendResult(r: PayloadReader, body: unknown): T.ResendWebhookResult {
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
