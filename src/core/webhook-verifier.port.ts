import type { Invoice } from '../gateway/types';

/** Injection token of the {@link WebhookVerifier} the webhooks capability provides. */
export const WEBHOOK_VERIFIER = Symbol('INVOICE_PAYMENTS_WEBHOOK_VERIFIER');

/** The outcome of checking one delivery: its invoice when authentic and readable, else why not. */
export type WebhookVerification = { ok: true; invoice: Invoice } | { ok: false; reason: string };

/**
 * Checks a webhook delivery the way the module's own route does (§6: both `Webhook` header lines, merchant part,
 * service-token validation) and reads its invoice in any accepted shape. Lives in `core/` so the checkout's
 * provider can authenticate deliveries that reach it through Medusa's webhook route without importing the webhooks
 * capability's internals.
 */
export interface WebhookVerifier {
  verify(headers: Record<string, unknown> | null | undefined, body: unknown): Promise<WebhookVerification>;
}
