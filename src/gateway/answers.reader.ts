import { asBool, asInt, asRecord, asText, type JsonRecord, valueAt } from './json';
import { invoiceIn } from './invoice.reader';
import type { PayloadReader } from './payload.reader';
import type * as T from './types';
import type { WireAuthenticate, WireCredentialStatus } from './wire-profile';

// Readers of the service's answers other than invoices.

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
  return top && asText(valueAt(invoiceIn(top).inv, path));
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
