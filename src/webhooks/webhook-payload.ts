import { createHash } from 'node:crypto';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../core/text-bounds';
import { normalizeInvoice } from '../gateway/invoice.normalizer';
import type { Invoice } from '../gateway/types';
import { DEFAULT_WIRE_PROFILE, valueAt, WireProfile, WireWebhookProfile } from '../gateway/wire-profile';

type JsonObject = Record<string, unknown>;

/** One delivery as read from its body. */
export interface WebhookDelivery {
  event: string | null;
  deliveryId: string | null;
  /** Webhook identifier from the body (`webhook`). */
  webhookId: string | null;
  sentAt: string | null;
  /** A synthetic delivery from the resend operation (A14) with no invoice to apply. */
  test: boolean;
  /** `current` (`invoice`), `legacy` (`fatura`), or `null` when the body carries no invoice. */
  shape: 'current' | 'legacy' | null;
  /** Whether the invoice came from below the top level (an event wrapper such as `{ event, data: {...} }`). */
  wrapped: boolean;
  /** The invoice, normalized by the one normalizer; `null` when absent. */
  invoice: Invoice | null;
  /** Why the invoice could not be read (the normalizer's message, naming the field); `null` when it could. */
  invoiceError: string | null;
  /** See {@link dedupeKeyOf}. */
  dedupeKey: string;
}

/**
 * The text a delivery's inbox row keeps (event, ids, sent_at, the invoice's id and referrer) checked against the
 * module's one text rule: `body.<field>: must not contain control characters`, or `null`. PostgreSQL refuses a NUL
 * in text (it was a 500), and the service sends none: such a body is refused (400), not stored or stripped.
 */
export function deliveryTextProblem(delivery: WebhookDelivery): string | null {
  const fields: Array<[string, string | null | undefined]> = [
    ['event', delivery.event],
    ['delivery_id', delivery.deliveryId],
    ['webhook', delivery.webhookId],
    ['sent_at', delivery.sentAt],
    ['invoice.id', delivery.invoice?.id],
    ['invoice.referrer', delivery.invoice?.referrer],
  ];
  const bad = fields.find(([, value]) => typeof value === 'string' && CONTROL_CHARACTERS.test(value));
  return bad ? `body.${bad[0]}: ${CONTROL_CHARACTERS_PROBLEM}` : null;
}

/** The parts of the wire profile a delivery is read with. */
export type DeliveryProfile = Pick<WireProfile, 'webhook' | 'codes'>;

/**
 * Reads a delivery body where the wire profile's `webhook` part says (the spec does not show the payload, §6.7).
 * The default reads the A13 body `{ event, delivery_id, webhook, sent_at, invoice: {...§2.1} }`, the same with
 * `fatura` (§2.2), and an event wrapper around either (`{ event, data: <body or bare invoice> }`, `payload` works as
 * `data`), the outer metadata winning. A profile names other paths, or a reader function of its own.
 * Never throws for a JSON object: an unreadable invoice is reported in `invoiceError`.
 */
export function readDelivery(
  body: JsonObject,
  profile: DeliveryProfile = DEFAULT_WIRE_PROFILE,
): WebhookDelivery {
  const parts = profile.webhook.read
    ? customParts(body, profile.webhook.read)
    : partsAt(body, profile.webhook);
  let invoice: Invoice | null = null;
  let invoiceError: string | null = parts.error;
  let shape: WebhookDelivery['shape'] = null;
  const container = isObject(parts.invoice) ? parts.invoice : null;
  if (container) {
    shape = 'fatura' in container || LEGACY_HINTS.some((k) => k in container) ? 'legacy' : 'current';
    try {
      invoice = normalizeInvoice(container, 'webhook', { codes: profile.codes });
    } catch (err) {
      invoiceError = err instanceof Error ? err.message : String(err);
    }
  }
  const rawInvoice = container ? ((container.invoice ?? container.fatura ?? container) as JsonObject) : {};
  return {
    event: parts.event,
    deliveryId: parts.deliveryId,
    webhookId: parts.webhookId,
    sentAt: parts.sentAt,
    test: parts.test,
    shape,
    wrapped: parts.wrapped,
    invoice,
    invoiceError,
    dedupeKey: dedupeKeyOf({
      deliveryId: parts.deliveryId,
      invoiceId: invoice?.id ?? text(rawInvoice.id),
      statusCode: invoice?.status.code ?? null,
      event: parts.event,
      sentAt: parts.sentAt,
    }),
  };
}

const LEGACY_HINTS = ['moeda', 'vencimento', 'referencia'];

interface Parts {
  invoice: unknown;
  event: string | null;
  deliveryId: string | null;
  webhookId: string | null;
  sentAt: string | null;
  test: boolean;
  wrapped: boolean;
  error: string | null;
}

function partsAt(body: JsonObject, w: WireWebhookProfile): Parts {
  const first = (paths: string[]) => paths.map((p) => text(valueAt(body, p))).find((v) => v !== null) ?? null;
  // The first path holding an invoice, or an envelope with one (a bare object with neither `status` nor `id` is
  // some other wrapper, not an invoice).
  const at = w.invoice.find((p) => {
    const v = valueAt(body, p);
    return isObject(v) && (isObject(v.invoice) || isObject(v.fatura) || 'status' in v || 'id' in v);
  });
  return {
    invoice: at === undefined ? null : valueAt(body, at),
    event: first(w.event),
    deliveryId: first(w.deliveryId),
    webhookId: first(w.webhookId),
    sentAt: first(w.sentAt),
    test: w.test.some((p) => valueAt(body, p) === true),
    wrapped: at !== undefined && (at.includes('.') || !['invoice', 'fatura', ''].includes(at)),
    error: null,
  };
}

function customParts(body: JsonObject, read: NonNullable<WireWebhookProfile['read']>): Parts {
  try {
    const p = read(body);
    return {
      invoice: p.invoice,
      event: text(p.event),
      deliveryId: text(p.deliveryId),
      webhookId: text(p.webhookId),
      sentAt: text(p.sentAt),
      test: p.test === true,
      wrapped: false,
      error: null,
    };
  } catch (err) {
    const error = `the profile's webhook reader failed: ${err instanceof Error ? err.message : String(err)}`;
    return {
      invoice: null,
      event: null,
      deliveryId: null,
      webhookId: null,
      sentAt: null,
      test: false,
      wrapped: false,
      error,
    };
  }
}

/**
 * The inbox's dedupe key: `delivery:<delivery_id>` when the body has one (A13: the same on every retry of a
 * delivery; hashed when longer than 120 characters), else `hash:` + SHA-256 of invoice id, status code, event
 * and `sent_at`. Without a `delivery_id`, two deliveries of the same status with the same `sent_at` are one.
 */
export function dedupeKeyOf(parts: {
  deliveryId: string | null;
  invoiceId: string | null;
  statusCode: number | null;
  event: string | null;
  sentAt: string | null;
}): string {
  if (parts.deliveryId) {
    return parts.deliveryId.length <= 120
      ? `delivery:${parts.deliveryId}`
      : `delivery#${sha256(parts.deliveryId)}`;
  }
  const fields = [parts.invoiceId, parts.statusCode, parts.event, parts.sentAt].map((v) =>
    v === null ? '' : v,
  );
  return `hash:${sha256(JSON.stringify(fields))}`;
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}
