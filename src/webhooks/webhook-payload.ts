import { createHash } from 'node:crypto';
import { normalizeInvoice } from '../gateway/invoice.normalizer';
import type { Invoice } from '../gateway/types';

type JsonObject = Record<string, unknown>;

/** Keys under which an event wrapper may carry the delivery (`{ event, data: { invoice } }`). */
const WRAPPER_KEYS = ['data', 'payload'] as const;

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
  /** Whether the delivery came inside an event wrapper. */
  wrapped: boolean;
  /** The invoice, normalized by the one normalizer; `null` when absent. */
  invoice: Invoice | null;
  /** Why the invoice could not be read (the normalizer's message, naming the field); `null` when it could. */
  invoiceError: string | null;
  /** See {@link dedupeKeyOf}. */
  dedupeKey: string;
}

/**
 * Reads a delivery body. Accepted shapes (the spec does not show the payload, §6.7):
 * - current (A13, what the sandbox sends): `{ event, delivery_id, webhook, sent_at, invoice: {...§2.1} }`;
 * - legacy: the same with `fatura: {...§2.2}` instead of `invoice`;
 * - an event wrapper around either: `{ event, data: <current or legacy body> }` (`payload` works as `data`), the
 *   inner object possibly being the bare invoice; the wrapper's `event`, `delivery_id`, `webhook` and `sent_at`
 *   win over the inner ones.
 * Never throws for a JSON object: an unreadable invoice is reported in `invoiceError`.
 */
export function readDelivery(body: JsonObject): WebhookDelivery {
  const wrapperKey = WRAPPER_KEYS.find(
    (k) => isObject(body[k]) && !('invoice' in body) && !('fatura' in body),
  );
  const inner = wrapperKey ? (body[wrapperKey] as JsonObject) : body;
  const meta = (key: string): string | null => text(body[key]) ?? (wrapperKey ? text(inner[key]) : null);

  let container: JsonObject | null = null;
  let shape: WebhookDelivery['shape'] = null;
  if (isObject(inner.invoice)) [container, shape] = [inner, 'current'];
  else if (isObject(inner.fatura)) [container, shape] = [inner, 'legacy'];
  else if (wrapperKey && ('status' in inner || 'id' in inner)) {
    // A bare invoice inside the wrapper: the normalizer tells the shapes apart by their field names.
    container = inner;
    shape = 'moeda' in inner || 'vencimento' in inner || 'referencia' in inner ? 'legacy' : 'current';
  }

  let invoice: Invoice | null = null;
  let invoiceError: string | null = null;
  if (container) {
    try {
      invoice = normalizeInvoice(container, 'webhook');
    } catch (err) {
      invoiceError = err instanceof Error ? err.message : String(err);
    }
  }
  const delivery = {
    event: meta('event'),
    deliveryId: meta('delivery_id'),
    webhookId: meta('webhook'),
    sentAt: meta('sent_at'),
    test: body.test === true || inner.test === true,
    shape,
    wrapped: wrapperKey !== undefined,
    invoice,
    invoiceError,
  };
  const rawInvoice = container ? ((container.invoice ?? container.fatura ?? container) as JsonObject) : {};
  return {
    ...delivery,
    dedupeKey: dedupeKeyOf({
      deliveryId: delivery.deliveryId,
      invoiceId: invoice?.id ?? text(rawInvoice.id),
      statusCode: invoice?.status.code ?? null,
      event: delivery.event,
      sentAt: delivery.sentAt,
    }),
  };
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
