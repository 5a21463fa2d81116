import { DAY, HOUR, int, MINUTE, resolveNumbers, type Numbers } from '../domain/option-fields';

/** Injection token of the resolved `ResolvedWebhooksOptions`. */
export const WEBHOOKS_OPTIONS = Symbol('INVOICE_PAYMENTS_WEBHOOKS_OPTIONS');

/** The webhook capability (`forRoot({ webhooks })`); the defaults suit production (docs/webhooks.md). */
export interface WebhooksOptions {
  /** Route of the receiving controller (POST). Default `webhooks/invoice-payments`. */
  path?: string;
  /** Larger bodies are answered 413. Default 262144 (256 KB); see docs/webhook-security.md for the host's parser. */
  bodyLimitBytes?: number;
  /** The webhook token's merchant part (§6.5) of a hand-registered webhook: a non-empty one must equal it. */
  merchantToken?: string;
  /** Accept an empty merchant part even with `merchantToken` set (the default webhook has none, A13). Default true. */
  allowEmptyMerchantPart?: boolean;
  /** An invoice is looked up at most once per this many ms, however many deliveries name it. Default 1000. */
  lookupWindowMs?: number;
  /** Invoice lookups a second for deliveries, in all, per process; more wait for the next second. Default 300. */
  lookupsPerSecond?: number;
  inbox?: WebhookInboxOptions;
}

export interface WebhookInboxOptions {
  /** Look for due entries (retries, entries left by a crash) every this many ms. Default 1000; 0 turns it off. */
  pollIntervalMs?: number;
  /** First retry delay, doubled each attempt. Default 1000. */
  retryBaseDelayMs?: number;
  /** Ceiling of the retry delay. Default 300000 (5 minutes). */
  retryMaxDelayMs?: number;
  /** How long a delivery for an invoice with no record yet waits before it is dead-lettered. Default 3600000 (1 h). */
  unknownInvoiceWindowMs?: number;
  /** Attempts before an entry that keeps failing for another reason (database errors) is dead-lettered. Default 20. */
  maxAttempts?: number;
  /** How long a processor holds a claimed entry; a crashed processor's claim lapses after it. Default 60000. */
  leaseMs?: number;
  /** Entries claimed per poll. Default 50. */
  batchSize?: number;
  /** Lookups of invoices this store has no record of, per `unknownLookupWindowMs` (default 60 per 60000 ms). */
  unknownLookupsPerWindow?: number;
  unknownLookupWindowMs?: number;
  /** How long finished entries are kept (default 30 days); keep it above the service's retry horizon. */
  retentionMs?: number;
}

/** {@link WebhooksOptions} with every default filled in; `maxJsonDepth`: deeper delivery bodies are refused (400). */
export type ResolvedWebhooksOptions = Required<Omit<WebhooksOptions, 'merchantToken' | 'inbox'>> & {
  merchantToken: string | null;
  maxJsonDepth: number;
  inbox: Required<WebhookInboxOptions>;
};

const WEBHOOKS = {
  bodyLimitBytes: int(1, 256 * 1024),
  lookupWindowMs: int(1, 1000),
  lookupsPerSecond: int(1, 300),
} as const satisfies Numbers<WebhooksOptions>;

const WEBHOOK_INBOX = {
  pollIntervalMs: int(0, 1000),
  retryBaseDelayMs: int(1, 1000),
  retryMaxDelayMs: int(1, 5 * MINUTE),
  unknownInvoiceWindowMs: int(1, HOUR),
  unknownLookupsPerWindow: int(1, 60),
  unknownLookupWindowMs: int(1, MINUTE),
  retentionMs: int(1, 30 * DAY),
  maxAttempts: int(1, 20),
  leaseMs: int(1, MINUTE),
  batchSize: int(1, 50),
} as const satisfies Numbers<WebhookInboxOptions>;

/** Without `workers`, the inbox is not polled. */
export function resolveWebhooksOptions(options: WebhooksOptions = {}, workers = true) {
  const path = (options.path ?? 'webhooks/invoice-payments').replace(/^\/+|\/+$/g, '');
  if (!path || /[?#\s]/.test(path)) throw new Error('webhooks.path must be a non-empty route path');
  if (options.merchantToken !== undefined && typeof options.merchantToken !== 'string') {
    throw new Error('webhooks.merchantToken must be a string');
  }
  return {
    ...resolveNumbers('webhooks', WEBHOOKS, options),
    path,
    maxJsonDepth: 64,
    merchantToken: options.merchantToken ? options.merchantToken : null,
    allowEmptyMerchantPart: options.allowEmptyMerchantPart ?? true,
    inbox: {
      ...resolveNumbers('webhooks.inbox', WEBHOOK_INBOX, options.inbox),
      ...(workers ? {} : { pollIntervalMs: 0 }),
    },
  };
}
