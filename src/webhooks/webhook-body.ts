import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../core/text-bounds';
import { asInt, asRecord, asText, exceedsJsonDepth, MAX_JSON_DEPTH } from '../gateway/payload.reader';
import { InvoiceStatusCode } from '../gateway/status';
import { DEFAULT_WIRE_PROFILE, valueAt, WireProfile, WireWebhookProfile } from '../gateway/wire-profile';

/** A delivery refused, with the HTTP status that says why (`unread`: refused before its body was read as JSON). */
export type Refusal = {
  ok: false;
  status: number;
  message: string;
  unread?: true;
  retryAfterSeconds?: number;
};

type RawBodyResult = { ok: true; body: Buffer } | Refusal;
type BoundedBody = RawBodyResult | { ok: true; parsed: unknown };

const refusal = (status: number, message: string): Refusal => ({ ok: false, status, message });

/** A body over the limit is not kept: the rest is left for Node to discard once the answer is sent. */
async function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') return refusal(415, `content-encoding ${encoding} is not supported`);
  if (req.readableEnded) return refusal(400, 'the body was already consumed by another parser');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return tooLarge(limit);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: RawBodyResult) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onError = () => finish(refusal(400, 'the body could not be read'));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** The one bound on a delivery's body: a request read within `limit` (or its `req.body` a parser read), bytes. */
export async function boundedBody(source: unknown, limit: number): Promise<BoundedBody> {
  const req = source as (IncomingMessage & { body?: unknown }) | null;
  if (typeof req?.on === 'function' && typeof req.headers === 'object') {
    if (req.body === undefined || !(req.readableEnded || req.complete)) return readRawBody(req, limit);
    source = req.body;
  }
  if (!Buffer.isBuffer(source)) return { ok: true, parsed: source };
  return source.length > limit ? tooLarge(limit) : { ok: true, body: source };
}

const tooLarge = (limit: number) => refusal(413, `body exceeds ${limit} bytes`);

/** A delivery's body read once, whichever host hands it over: bounded, a JSON object, at most `maxDepth` deep. */
export async function readDeliveryBody(
  source: unknown,
  limit: number,
  maxDepth: number,
): Promise<{ ok: true; value: JsonObject } | Refusal> {
  const read = await boundedBody(source, limit);
  if (!read.ok) return { ...read, unread: true };
  let value: unknown;
  try {
    value = 'body' in read ? JSON.parse(read.body.toString('utf8')) : read.parsed;
  } catch {
    return refusal(400, 'body: malformed JSON');
  }
  if (asRecord(value) === null) return refusal(400, 'body: must be a JSON object');
  if (exceedsJsonDepth(value, maxDepth)) return refusal(400, `body: nested deeper than ${maxDepth} levels`);
  return { ok: true, value: value as JsonObject };
}

type JsonObject = Record<string, unknown>;

type NamedInvoice = { id: string; referrer: string | null; statusCode: number } | null;

/** What routing needs of an untrusted body: the body is a trigger, so nothing else of it is read. */
export interface WebhookDelivery {
  event: string | null;
  deliveryId: string | null;
  webhookId: string | null;
  sentAt: string | null;
  /** A synthetic delivery from the resend operation (A14) with no invoice to apply. */
  test: boolean;
  invoice: NamedInvoice;
  /** Why the invoice could not be read, naming the field. */
  invoiceError: string | null;
  /** The invoice object as received, card data redacted: what the inbox row keeps. */
  payload: unknown;
  dedupeKey: string;
}

/**
 * The invoice a delivery names, or why it cannot be stored: text an inbox row may not keep (400; PostgreSQL refuses
 * NUL), or nothing a lookup could answer (422: a sender cannot fill the inbox with bodies naming nothing).
 */
export function routable(d: WebhookDelivery): { ok: true; invoice: NonNullable<NamedInvoice> } | Refusal {
  const texts = { event: d.event, delivery_id: d.deliveryId, webhook: d.webhookId, sent_at: d.sentAt };
  const fields = { ...texts, 'invoice.id': d.invoice?.id, 'invoice.referrer': d.invoice?.referrer };
  const bad = Object.entries(fields).find(
    ([, value]) => typeof value === 'string' && CONTROL_CHARACTERS.test(value),
  );
  if (bad) return { ok: false, status: 400, message: `body.${bad[0]}: ${CONTROL_CHARACTERS_PROBLEM}` };
  if (d.invoice) return { ok: true, invoice: d.invoice };
  const what = d.test ? 'a test delivery without an invoice' : (d.invoiceError ?? 'no invoice');
  return { ok: false, status: 422, message: `${what}: nothing stored` };
}

/**
 * Reads a delivery body where the wire profile's `webhook` part says (by default the A13 body, with `invoice` or
 * `fatura`, or an event wrapper around it). Never throws: an unreadable invoice is `invoiceError`.
 */
export function readDelivery(
  body: JsonObject,
  profile: Pick<WireProfile, 'webhook'> = DEFAULT_WIRE_PROFILE,
): WebhookDelivery {
  const w = profile.webhook;
  const { invoice: raw, error, ...meta } = w.read ? customParts(body, w.read) : partsAt(body, w);
  const container = asRecord(raw);
  const read = container ? readInvoice(container) : { invoice: null, error: null, id: null };
  return {
    ...meta,
    invoice: read.invoice,
    invoiceError: read.error ?? error,
    payload: container ? redactCardData(container) : null,
    dedupeKey: dedupeKeyOf({ ...meta, invoiceId: read.id, statusCode: read.invoice?.statusCode ?? null }),
  };
}

const MAX_INT32 = 2_147_483_647;
const LEGACY_KEYS = ['moeda', 'vencimento', 'valores', 'cartao', 'referencia', 'criacao', 'pagamento'];

/** The number, referrer and status code of either shape, as the one normalizer reads them. */
function readInvoice(container: JsonObject): {
  invoice: NamedInvoice;
  error: string | null;
  id: string | null;
} {
  const fatura = asRecord(container.fatura);
  const current = fatura ? null : asRecord(container.invoice);
  const inv = fatura ?? current ?? container;
  const legacy = fatura !== null || (current === null && LEGACY_KEYS.some((k) => k in container));
  const p = fatura ? 'fatura.' : current ? 'invoice.' : '';
  const id = asText(inv.id);
  const referrer = asText(legacy ? inv.referencia : inv.referrer);
  const fail = (path: string, problem: string) => ({
    invoice: null,
    error: `unreadable ${path}: ${problem}`,
    id,
  });
  if (id === null || id.trim() === '') return fail(`${p}id`, 'missing');
  const status = asRecord(inv.status);
  if (!status) return fail(`${p}status`, 'not an object');
  let statusCode = asInt(status.code);
  // The inbox keeps it in an `integer` column: a larger one is refused here, never by the INSERT.
  if (statusCode !== null && (statusCode > MAX_INT32 || statusCode < -MAX_INT32 - 1))
    return fail(`${p}status.code`, 'out of range');
  if (statusCode === null) {
    if (status.code !== undefined && status.code !== null) return fail(`${p}status.code`, 'not an integer');
    const word = asText(status.text)?.trim().toLowerCase();
    if (word !== 'canceled' && word !== 'cancelled') return fail(`${p}status.code`, 'missing');
    statusCode = InvoiceStatusCode.Canceled;
  }
  return { invoice: { id, referrer, statusCode }, error: null, id };
}

type Parts = Pick<WebhookDelivery, 'event' | 'deliveryId' | 'webhookId' | 'sentAt' | 'test'> & {
  invoice: unknown;
  error: string | null;
};

function partsAt(body: JsonObject, w: WireWebhookProfile): Parts {
  const first = (paths: string[]) => paths.map((p) => text(valueAt(body, p))).find((v) => v !== null) ?? null;
  // The first path holding an invoice, or an envelope with one (a bare object with neither `status` nor `id` is
  // some other wrapper, not an invoice).
  const at = w.invoice.find((p) => {
    const v = asRecord(valueAt(body, p));
    return !!v && (asRecord(v.invoice) !== null || asRecord(v.fatura) !== null || 'status' in v || 'id' in v);
  });
  return {
    invoice: at === undefined ? null : valueAt(body, at),
    event: first(w.event),
    deliveryId: first(w.deliveryId),
    webhookId: first(w.webhookId),
    sentAt: first(w.sentAt),
    test: w.test.some((p) => valueAt(body, p) === true),
    error: null,
  };
}

const NO_PARTS = { invoice: null, event: null, deliveryId: null, webhookId: null, sentAt: null, test: false };

function customParts(body: JsonObject, read: NonNullable<WireWebhookProfile['read']>): Parts {
  try {
    const p = read(body);
    const [event, deliveryId, webhookId, sentAt] = [p.event, p.deliveryId, p.webhookId, p.sentAt].map(text);
    return { invoice: p.invoice, event, deliveryId, webhookId, sentAt, test: p.test === true, error: null };
  } catch (err) {
    const error = `the profile's webhook reader failed: ${err instanceof Error ? err.message : String(err)}`;
    return { ...NO_PARTS, error };
  }
}

/**
 * The inbox's dedupe key: `delivery:<delivery_id>` (the same on every retry, A13; hashed past 120 characters), else
 * `hash:` + SHA-256 of invoice id, status code, event and `sent_at`.
 */
export function dedupeKeyOf(
  parts: Pick<WebhookDelivery, 'deliveryId' | 'event' | 'sentAt'> & {
    invoiceId: string | null;
    statusCode: number | null;
  },
): string {
  if (parts.deliveryId) {
    return parts.deliveryId.length <= 120
      ? `delivery:${parts.deliveryId}`
      : `delivery#${sha256(parts.deliveryId)}`;
  }
  const fields = [parts.invoiceId, parts.statusCode, parts.event, parts.sentAt].map((v) => v ?? '');
  return `hash:${sha256(JSON.stringify(fields))}`;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

const CARD_SECRETS = new Set(['number', 'numero', 'token', 'bin']);

/** A copy of `value` with `number`, `numero`, `token` and `bin` redacted inside every `card`/`cartao` object. */
function redactCardData(value: unknown, inCard = false, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactCardData(v, inCard, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (inCard && CARD_SECRETS.has(key) && v !== null && v !== undefined) out[key] = '[redacted]';
    else out[key] = redactCardData(v, key === 'card' || key === 'cartao', depth + 1);
  }
  return out;
}
