import type { HostDelivery } from '../core/ports';
import { asRecord, type JsonRecord } from '../gateway/json';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { Refusal } from './webhook-inbox.types';

// A delivery's body as its host parsed it. Its size is the host parser's bound (Express: `app.useBodyParser`), and
// `webhooks.bodyLimitBytes` where the host hands the size over; its shape is bounded here, before anything reads it.

/** Objects and arrays a delivery body may hold in all: the service's deliveries hold about a hundred. */
export const MAX_JSON_CONTAINERS = 10_000;

/** A body whose declared or handed-over size is past `webhooks.bodyLimitBytes`: 413. */
export function tooLarge(bytes: number, options: ResolvedWebhooksOptions): Refusal | null {
  const limit = options.bodyLimitBytes;
  return bytes > limit ? { ok: false, status: 413, message: `body exceeds ${limit} bytes` } : null;
}

/**
 * The body a host handed over, within the bounds: bytes or text (a host that kept the raw body) parsed once, then a
 * JSON object (400), at most `maxJsonDepth` deep and {@link MAX_JSON_CONTAINERS} containers (400 naming the bound).
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
  const problem = shapeProblem(record, options.maxJsonDepth);
  return problem ? refusal(problem) : { ok: true, value: record };
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

/** What makes a body too deep or too large in containers, checked without recursion; `null` when nothing does. */
function shapeProblem(root: JsonRecord, maxDepth: number): string | null {
  const stack: Array<{ node: object; depth: number }> = [{ node: root, depth: 1 }];
  let containers = 0;
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: object; depth: number };
    if (depth > maxDepth) return `body: nested deeper than ${maxDepth} levels`;
    if (++containers > MAX_JSON_CONTAINERS)
      return `body: more than ${MAX_JSON_CONTAINERS} objects and arrays`;
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null)
        stack.push({ node: child as object, depth: depth + 1 });
    }
  }
  return null;
}

function refusal(message: string): Refusal {
  return { ok: false, status: 400, message };
}
