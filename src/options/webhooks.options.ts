import { DAY, HOUR, int, MINUTE, resolveNumbers, type NumberOptions } from '../domain/option-fields';

/**
 * What a merchant token may hold (A13): no colon, which separates it from the service's token in the delivery's
 * token, so a merchant token with one could never be matched; no white space. The admin setting has the same rule.
 */
export const MERCHANT_TOKEN = /^[^\s:]+$/;

/** Injection token of the resolved `ResolvedWebhooksOptions`. */
export const WEBHOOKS_OPTIONS = Symbol('INVOICE_PAYMENTS_WEBHOOKS_OPTIONS');

const WEBHOOKS = {
  /** Larger bodies are answered 413. Default 262144 (256 KB); see docs/webhook-security.md for the host's parser. */
  bodyLimitBytes: int(1, 256 * 1024),
  /** An invoice is looked up at most once per this many ms, however many deliveries name it. Default 1000. */
  lookupWindowMs: int(1, 1000),
  /** Invoice lookups a second for deliveries, in all, per process; more wait for the next second. Default 300. */
  lookupsPerSecond: int(1, 300),
} as const;

const WEBHOOK_INBOX = {
  /** Look for due entries (retries, entries left by a crash) every this many ms. Default 1000; 0 turns it off. */
  pollIntervalMs: int(0, 1000),
  /** First retry delay, doubled each attempt. Default 1000. */
  retryBaseDelayMs: int(1, 1000),
  /** Ceiling of the retry delay. Default 300000 (5 minutes). */
  retryMaxDelayMs: int(1, 5 * MINUTE),
  /** How long a delivery for an invoice with no record yet waits before it is dead-lettered. Default 3600000 (1 h). */
  unknownInvoiceWindowMs: int(1, HOUR),
  /** Lookups of invoices this store has no record of, per `unknownLookupWindowMs` (default 60 per 60000 ms). */
  unknownLookupsPerWindow: int(1, 60),
  unknownLookupWindowMs: int(1, MINUTE),
  /** How long finished entries are kept (default 30 days); keep it above the service's retry horizon. */
  retentionMs: int(1, 30 * DAY),
  /** Attempts before an entry that keeps failing for another reason (database errors) is dead-lettered. Default 20. */
  maxAttempts: int(1, 20),
  /** How long a processor holds a claimed entry; a crashed processor's claim lapses after it. Default 60000. */
  leaseMs: int(1, MINUTE),
  /** Entries claimed per poll. Default 50. */
  batchSize: int(1, 50),
} as const;

/** The webhook capability (`forRoot({ webhooks })`); the defaults suit production (docs/webhooks.md). */
export interface WebhooksOptions extends NumberOptions<typeof WEBHOOKS> {
  /** Route of the receiving controller (POST). Default `webhooks/invoice-payments`. */
  path?: string;
  /** The webhook token's merchant part (§6.5) of a hand-registered webhook: a non-empty one must equal it. */
  merchantToken?: string;
  /** Accept an empty merchant part even with `merchantToken` set (the default webhook has none, A13). Default true. */
  allowEmptyMerchantPart?: boolean;
  inbox?: NumberOptions<typeof WEBHOOK_INBOX>;
}

/** {@link WebhooksOptions} with every default filled in. */
export type ResolvedWebhooksOptions = ReturnType<typeof resolveWebhooksOptions>;

/** Without `workers`, the inbox is not polled. */
export function resolveWebhooksOptions(options: WebhooksOptions = {}, workers = true) {
  const path = (options.path ?? 'webhooks/invoice-payments').replace(/^\/+|\/+$/g, '');
  if (!path || /[?#\s]/.test(path)) throw new Error('webhooks.path must be a non-empty route path');
  const { merchantToken } = options;
  if (merchantToken !== undefined && typeof merchantToken !== 'string') {
    throw new Error('webhooks.merchantToken must be a string');
  }
  if (merchantToken && !MERCHANT_TOKEN.test(merchantToken)) {
    throw new Error(
      'webhooks.merchantToken must not hold spaces or ":" (the separator of the delivery\'s token)',
    );
  }
  return {
    ...resolveNumbers('webhooks', WEBHOOKS, options),
    path,
    merchantToken: merchantToken ? merchantToken : null,
    allowEmptyMerchantPart: options.allowEmptyMerchantPart ?? true,
    inbox: {
      ...resolveNumbers('webhooks.inbox', WEBHOOK_INBOX, options.inbox),
      ...(workers ? {} : { pollIntervalMs: 0 }),
    },
  };
}
