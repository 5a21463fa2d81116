import type { ResolvedWebhooksOptions, WebhooksOptions, WebhooksTuning } from './types';

/** Injection token of the resolved {@link ResolvedWebhooksOptions}. */
export const WEBHOOKS_OPTIONS = Symbol('INVOICE_PAYMENTS_WEBHOOKS_OPTIONS');

/**
 * Injection token of an optional {@link WebhookMerchantTokenSource}: where the merchant token is read at runtime
 * (the root module binds the admin settings). Without it, `webhooks.merchantToken` applies.
 */
export const WEBHOOK_MERCHANT_TOKEN_SOURCE = Symbol('INVOICE_PAYMENTS_WEBHOOK_MERCHANT_TOKEN_SOURCE');

export const DEFAULT_WEBHOOK_PATH = 'webhooks/invoice-payments';
export const DEFAULT_WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveWebhooksOptions(
  options: WebhooksOptions & WebhooksTuning = {},
): ResolvedWebhooksOptions {
  const positive = (value: number | undefined, fallback: number, name: string, allowZero = false): number => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || v < 0 || (v === 0 && !allowZero)) {
      throw new Error(`webhooks.${name}: must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
    }
    return v;
  };
  const path = (options.path ?? DEFAULT_WEBHOOK_PATH).replace(/^\/+|\/+$/g, '');
  if (!path || /[?#\s]/.test(path)) throw new Error('webhooks.path: must be a non-empty route path');
  if (options.merchantToken !== undefined && typeof options.merchantToken !== 'string') {
    throw new Error('webhooks.merchantToken: must be a string');
  }
  const inbox = options.inbox ?? {};
  const sweep = options.sweep ?? {};
  const pageSize = positive(sweep.pageSize, 100, 'sweep.pageSize');
  if (pageSize > 100) throw new Error('webhooks.sweep.pageSize: at most 100 (spec §4.1)');
  return {
    path,
    bodyLimitBytes: positive(options.bodyLimitBytes, DEFAULT_WEBHOOK_BODY_LIMIT, 'bodyLimitBytes'),
    merchantToken: options.merchantToken ? options.merchantToken : null,
    allowEmptyMerchantPart: options.allowEmptyMerchantPart ?? true,
    lookupWindowMs: positive(options.lookupWindowMs, 1000, 'lookupWindowMs'),
    lookupsPerSecond: positive(options.lookupsPerSecond, 300, 'lookupsPerSecond'),
    maxJsonDepth: positive(options.maxJsonDepth, 64, 'maxJsonDepth'),
    inbox: {
      pollIntervalMs: positive(inbox.pollIntervalMs, 1000, 'inbox.pollIntervalMs', true),
      retryBaseDelayMs: positive(inbox.retryBaseDelayMs, 1000, 'inbox.retryBaseDelayMs'),
      retryMaxDelayMs: positive(inbox.retryMaxDelayMs, 300_000, 'inbox.retryMaxDelayMs'),
      unknownInvoiceWindowMs: positive(
        inbox.unknownInvoiceWindowMs,
        3600_000,
        'inbox.unknownInvoiceWindowMs',
      ),
      unknownLookupsPerWindow: positive(inbox.unknownLookupsPerWindow, 60, 'inbox.unknownLookupsPerWindow'),
      unknownLookupWindowMs: positive(inbox.unknownLookupWindowMs, 60_000, 'inbox.unknownLookupWindowMs'),
      retentionMs: positive(inbox.retentionMs, 30 * 86_400_000, 'inbox.retentionMs'),
      maxAttempts: positive(inbox.maxAttempts, 20, 'inbox.maxAttempts'),
      leaseMs: positive(inbox.leaseMs, 60_000, 'inbox.leaseMs'),
      batchSize: positive(inbox.batchSize, 50, 'inbox.batchSize'),
    },
    sweep: {
      intervalMs: positive(sweep.intervalMs, 0, 'sweep.intervalMs', true),
      lookbackDays: positive(sweep.lookbackDays, 30, 'sweep.lookbackDays'),
      pageSize,
    },
  };
}
