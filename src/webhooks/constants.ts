/** Injection token of the resolved `ResolvedWebhooksOptions`. */
export const WEBHOOKS_OPTIONS = Symbol('INVOICE_PAYMENTS_WEBHOOKS_OPTIONS');

/**
 * Injection token of an optional {@link WebhookMerchantTokenSource}: where the merchant token is read at runtime
 * (the root module binds the admin settings). Without it, `webhooks.merchantToken` applies.
 */
export const WEBHOOK_MERCHANT_TOKEN_SOURCE = Symbol('INVOICE_PAYMENTS_WEBHOOK_MERCHANT_TOKEN_SOURCE');
