import type { HostDelivery } from '../core/ports';
import { asRecord, exceedsJsonDepth, type JsonRecord } from '../gateway/json';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { Refusal } from './webhook-inbox.types';

// A delivery's body as its host parsed it. Its size is the host parser's bound (Express: `app.useBodyParser`), and
// `webhooks.bodyLimitBytes` where the host hands the size over; its shape is bounded here, before anything reads it.

/** A body whose declared or handed-over size is past `webhooks.bodyLimitBytes`: 413. */
export function tooLarge(bytes: number, options: ResolvedWebhooksOptions): Refusal | null {
  const limit = options.bodyLimitBytes;
  return bytes > limit ? { ok: false, status: 413, message: `body exceeds ${limit} bytes` } : null;
}

/**
 * The body a host handed over, within the bounds: bytes or text (a host that kept the raw body) parsed once, then a
 * JSON object (400), at most `maxJsonDepth` deep (400 naming the bound). How many objects it holds is bounded by its
 * size, which the host's parser or `webhooks.bodyLimitBytes` bounds.
 */
export function checkBody(
  body: unknown,
  options: ResolvedWebhooksOptions,
): { ok: true; value: JsonRecord } | Refusal {
  let value = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    const refused = tooLarge(Buffer.byteLength(body), options);
    if (refused) return refused;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return refusal('body: malformed JSON');
    }
  }
  const record = asRecord(value);
  if (record === null) return refusal('body: must be a JSON object');
  const depth = options.maxJsonDepth;
  if (exceedsJsonDepth(record, depth)) return refusal(`body: nested deeper than ${depth} levels`);
  return { ok: true, value: record };
}

/** The body a host passes: its parsed `data` when it has one, else its raw bytes. */
export function hostBodyOf(delivery: HostDelivery | null | undefined): unknown {
  const data = delivery?.data;
  const parsed = typeof data === 'object' && data !== null && !Array.isArray(data);
  if (parsed && Object.keys(data).length > 0) return data;
  const raw = delivery?.rawData;
  if (raw === undefined || raw === null || raw === '') return data ?? null;
  return Buffer.isBuffer(raw) ? raw : String(raw);
}

function refusal(message: string): Refusal {
  return { ok: false, status: 400, message };
}
