import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../domain/text-bounds';
import type { NamedInvoice, WebhookDelivery } from '../gateway/webhook.reader';
import { readWebhookHeaderLines, webhookLinesOf } from '../gateway/webhook.reader';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { IgnoredDelivery, Refusal } from './webhook-inbox.types';

// The checks of a delivery that need neither the database nor the service: its token, and what it names.

/** Where the merchant part of the webhook token is read at runtime; `null` when none is configured. */
export interface WebhookMerchantTokenSource {
  merchantToken(): Promise<string | null>;
}

/** Injection token of an optional {@link WebhookMerchantTokenSource} (the root module binds the admin settings). */
export const WEBHOOK_MERCHANT_TOKEN_SOURCE = Symbol('INVOICE_PAYMENTS_WEBHOOK_MERCHANT_TOKEN_SOURCE');

/** Seconds the service is asked to wait when the merchant token could not be read now. */
const TOKEN_RETRY_AFTER_SECONDS = 30;
/**
 * The checks of a delivery's `Webhook` token that need no call to the service (§6): a `merchant:service` line, its
 * merchant part against the merchant token read now, when there is one. No token reaches a log line or a reason.
 */
export async function checkToken(
  source: IncomingMessage | Record<string, unknown>,
  options: ResolvedWebhooksOptions,
  merchantSource?: WebhookMerchantTokenSource | null,
): Promise<{ ok: true; webhookId: string | null } | Refusal> {
  const lines = readWebhookHeaderLines(webhookLinesOf(source));
  const refuse = (message: string) => ({ ok: false as const, status: 401 as const, message });
  if (!lines.token) return refuse(lines.problem ?? 'no token');
  let expected: string | null;
  try {
    expected = merchantSource ? await merchantSource.merchantToken() : options.merchantToken;
  } catch {
    const message = 'the merchant token could not be read now; try again later';
    return { ok: false, status: 503, message, retryAfterSeconds: TOKEN_RETRY_AFTER_SECONDS };
  }
  const problem = merchantPartProblem(lines.token.merchant, expected, options.allowEmptyMerchantPart);
  return problem ? refuse(problem) : { ok: true, webhookId: lines.webhookId };
}

/**
 * What is wrong with a token's merchant part against the store's merchant token (`null`: none configured, so any),
 * or `null`. The text never holds a token.
 */
function merchantPartProblem(merchant: string, expected: string | null, allowEmpty: boolean): string | null {
  if (expected === null) return null;
  if (merchant === '') return allowEmpty ? null : 'the token has an empty merchant part';
  // Equal-length digests: the comparison takes the same time whatever the inputs.
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(merchant), digest(expected))
    ? null
    : 'the merchant part of the token does not match';
}

/** The longest text each routing field may hold: its inbox column's width. */
const FIELD_LENGTHS = {
  event: 64,
  delivery_id: 128,
  webhook: 128,
  sent_at: 32,
  'invoice.id': 128,
  'invoice.referrer': 160,
};

/**
 * The invoice a delivery names, or what the intake does instead of storing it: text an inbox row may not keep (400
 * naming the field: PostgreSQL refuses NUL; longer than its column), an invoice that cannot be read (422 naming the
 * field: a sender cannot fill the inbox with bodies naming nothing), or the service's synthetic test delivery, which names no invoice (acknowledged: the
 * service's test of the endpoint succeeds).
 */
export function routable(
  d: WebhookDelivery,
): { ok: true; invoice: NamedInvoice } | { ignored: IgnoredDelivery } | Refusal {
  const texts = { event: d.event, delivery_id: d.deliveryId, webhook: d.webhookId, sent_at: d.sentAt };
  const fields = { ...texts, 'invoice.id': d.invoice?.id, 'invoice.referrer': d.invoice?.referrer };
  for (const [field, value] of Object.entries(fields)) {
    const problem = fieldProblem(value, FIELD_LENGTHS[field as keyof typeof fields]);
    if (problem) return { ok: false, status: 400, message: `body.${field}: ${problem}` };
  }
  if (d.invoice) return { ok: true, invoice: d.invoice };
  if (d.test && d.invoiceError === null) {
    const message = 'a test delivery without an invoice: acknowledged, nothing stored';
    return { ignored: { reason: 'test_delivery', message } };
  }
  return { ok: false, status: 422, message: `${d.invoiceError ?? 'no invoice'}: nothing stored` };
}

/** Why a routing field's text cannot be kept in its column of `maxLength`, or `null`. */
function fieldProblem(value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string') return null;
  if (CONTROL_CHARACTERS.test(value)) return CONTROL_CHARACTERS_PROBLEM;
  return value.length > maxLength ? `longer than ${maxLength} characters` : null;
}
