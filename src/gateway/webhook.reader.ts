import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { GatewayResponseError } from './errors';
import { asRecord, asText, firstTextAt, type JsonRecord, sentText, valueAt } from './json';
import { invoiceIn, redactCardData, SHAPES, statusOf } from './invoice.reader';
import { PayloadReader } from './payload.reader';
import type { WireProfile, WireWebhookProfile } from './wire-profile';

// A delivery's body parts and `Webhook` header lines, read. Nothing here decides or trusts: the intake checks the
// token and refuses what it cannot route or store, and the invoice is looked up at the service before it counts.

/** The invoice a delivery names: by number, by the store's reference, and in which status. */
export type NamedInvoice = { id: string; referrer: string | null; statusCode: number };

/** What routing needs of an untrusted body: the body is a trigger, so nothing else of it is read. */
export interface WebhookDelivery {
  event: string | null;
  deliveryId: string | null;
  webhookId: string | null;
  sentAt: string | null;
  /** A synthetic delivery from the resend operation (A14) with no invoice to apply. */
  test: boolean;
  invoice: NamedInvoice | null;
  /** Why the invoice could not be read, naming the field. */
  invoiceError: string | null;
  /** The invoice as received, card data redacted when first read (a refused delivery is never copied). */
  readonly payload: unknown;
  dedupeKey: string;
}

/**
 * Reads a delivery body where the wire profile's `webhook` part says (by default the A13 body, with `invoice` or
 * `fatura`, or an event wrapper around it). Never throws: an unreadable invoice is `invoiceError`.
 */
export function readDelivery(body: JsonRecord, profile: Pick<WireProfile, 'webhook'>): WebhookDelivery {
  const w = profile.webhook;
  const { invoice: raw, error, ...meta } = w.read ? customParts(body, w.read) : partsAt(body, w);
  const container = asRecord(raw);
  const read = container ? readInvoice(container) : { invoice: null, error: null, id: null };
  return {
    ...meta,
    invoice: read.invoice,
    invoiceError: read.error ?? error,
    dedupeKey: dedupeKeyOf({ ...meta, invoiceId: read.id, statusCode: read.invoice?.statusCode ?? null }),
    get payload() {
      // The received object stays in this closure: only its redacted copy is ever a property (logged, stored).
      const payload = container ? redactCardData(container) : null;
      Object.defineProperty(this, 'payload', { value: payload, enumerable: true });
      return payload;
    },
  };
}

const MAX_INT32 = 2_147_483_647;

/** The number, referrer and status code of either shape, as the one normalizer reads them. */
function readInvoice(container: JsonRecord): {
  invoice: NamedInvoice | null;
  error: string | null;
  id: string | null;
} {
  const { inv, prefix, shape } = invoiceIn(container);
  const id = asText(inv.id);
  const referrer = asText(inv[SHAPES[shape].referrer]);
  const r = new PayloadReader('readDelivery');
  try {
    r.requiredText(inv.id, `${prefix}id`);
    const statusCode = statusOf(r, inv.status, `${prefix}status`).code;
    // The inbox keeps it in an `integer` column: a larger one is refused here, never by the INSERT.
    if (statusCode > MAX_INT32 || statusCode < -MAX_INT32 - 1) r.fail(`${prefix}status.code`, 'out of range');
    return { invoice: { id: id as string, referrer, statusCode }, error: null, id };
  } catch (err) {
    if (!(err instanceof GatewayResponseError)) throw err;
    return { invoice: null, error: err.detail, id };
  }
}

type CustomReader = NonNullable<WireWebhookProfile['read']>;
/** A delivery's parts as the profile's own reader answers them, every one present, and why reading failed. */
type Parts = Required<ReturnType<CustomReader>> & { error: string | null };

function partsAt(body: JsonRecord, w: WireWebhookProfile): Parts {
  // The first path holding an invoice, or an envelope with one (a bare object with neither `status` nor `id` is
  // some other wrapper, not an invoice).
  const at = w.invoice.find((path) => {
    const v = asRecord(valueAt(body, path));
    if (!v) return false;
    return asRecord(v.invoice) !== null || asRecord(v.fatura) !== null || 'status' in v || 'id' in v;
  });
  return {
    invoice: at === undefined ? null : valueAt(body, at),
    event: firstTextAt(body, w.event, sentText),
    deliveryId: firstTextAt(body, w.deliveryId, sentText),
    webhookId: firstTextAt(body, w.webhookId, sentText),
    sentAt: firstTextAt(body, w.sentAt, sentText),
    test: w.test.some((p) => valueAt(body, p) === true),
    error: null,
  };
}

const NO_PARTS = { invoice: null, event: null, deliveryId: null, webhookId: null, sentAt: null, test: false };

function customParts(body: JsonRecord, read: CustomReader): Parts {
  try {
    const p = read(body);
    const [event, deliveryId, webhookId, sentAt] = [p.event, p.deliveryId, p.webhookId, p.sentAt].map(
      sentText,
    );
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

/** The service issues service parts of at most 512 characters (A13): a longer one is none of its tokens. */
const MAX_SERVICE_TOKEN_LENGTH = 512;

/**
 * Tells the lines apart in any order: the token is the strict base64 of `merchant:service` (split at the first colon).
 * Lines joined with ", " are split again (base64 and webhook ids have no commas).
 */
export function readWebhookHeaderLines(received: readonly string[]) {
  let webhookId: string | null = null;
  const tokens = new Set<string>();
  const lines = received.flatMap((value) => value.split(','));
  for (const line of lines.map((value) => value.trim())) {
    // Strict base64 only: the decoder skips what is not, so the text must encode back to the line itself.
    const buf = Buffer.from(line, 'base64');
    const text = buf.toString('utf8');
    // A webhook id that happens to be valid base64 decodes to binary noise, not printable `merchant:service`.
    const printable = [...text].every((ch) => ch >= ' ' && ch !== '\x7f' && ch !== '\ufffd');
    if (buf.toString('base64') === line && text.includes(':') && printable) tokens.add(text);
    else if (line !== '') webhookId ??= line;
  }
  const none = (problem: string) => ({ webhookId, token: null, problem });
  if (tokens.size === 0) return none('no Webhook header line carries a token');
  if (tokens.size > 1) return none('several different Webhook tokens');
  const [text] = tokens;
  const colon = text.indexOf(':');
  const token = { merchant: text.slice(0, colon), service: text.slice(colon + 1) };
  if (token.service.length === 0) return none('the token has an empty service part');
  if (token.service.length > MAX_SERVICE_TOKEN_LENGTH) {
    return none(`the token's service part is too long (over ${MAX_SERVICE_TOKEN_LENGTH})`);
  }
  return { webhookId, token, problem: null };
}

/** The `Webhook` header lines of a request, or of a header record a framework hands over (any letter case). */
export function webhookLinesOf(source: IncomingMessage | Record<string, unknown>): string[] {
  const req = source as IncomingMessage & { headersDistinct?: Record<string, string[] | undefined> };
  if (req.headersDistinct) return req.headersDistinct['webhook'] ?? [];
  const out: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (name.toLowerCase() !== 'webhook') continue;
    const values: unknown[] = Array.isArray(value) ? value : [value];
    out.push(...values.filter((v): v is string => typeof v === 'string'));
  }
  return out;
}
