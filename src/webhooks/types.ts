/** Where the merchant part of the webhook token is read at runtime; `null` when none is configured. */
export interface WebhookMerchantTokenSource {
  merchantToken(): Promise<string | null>;
}
