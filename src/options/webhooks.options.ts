import { DAY, HOUR, int, MINUTE, resolveNumbers, type Numbers } from './fields';

/**
 * Options of the webhook capability (`InvoicePaymentsModule.forRoot({ webhooks: {...} })`). Every field has a
 * default; the defaults suit production.
 */
export interface WebhooksOptions {
  /** Route of the receiving controller (POST). Default `webhooks/invoice-payments`. */
  path?: string;
  /**
   * Largest accepted body, in bytes; a larger one is answered 413. Default 262144 (256 KB). On Express the route
   * reads its own body ahead of the host's JSON parser, so this applies whatever the host's parser allows (Express'
   * default is 100 KB); elsewhere the host's parser reads it first and its limit applies too.
   */
  bodyLimitBytes?: number;
  /**
   * The merchant part of the webhook token (§6.5), when the webhook was registered by hand with one. A non-empty
   * merchant part must then equal it (compared in constant time).
   */
  merchantToken?: string;
  /**
   * Accept deliveries whose merchant part is empty even when `merchantToken` is set. Default `true`: deliveries to
   * an invoice's `payment.webhook` URL come from the account's default webhook, which has no merchant token (A13).
   * Set `false` when every delivery comes through the hand-registered webhook.
   */
  allowEmptyMerchantPart?: boolean;
  /**
   * A delivery is a trigger: its invoice is looked up at the service at most once per this many ms, however many
   * deliveries name it; deliveries that come meanwhile wait for the next lookup, which answers them all. Default
   * 1000. Bounds what a flood naming one invoice costs the service.
   */
  lookupWindowMs?: number;
  /**
   * At most this many invoice lookups a second for deliveries, in all (per process); beyond, the lookups wait for
   * the next second. Default 300 (a burst of 200 invoices paid at once is not slowed). Bounds what a flood naming
   * many of the store's invoices costs the service.
   */
  lookupsPerSecond?: number;
  /** The inbox processor. */
  inbox?: WebhookInboxOptions;
}

export interface WebhookInboxOptions {
  /** Look for due entries (retries, entries left by a crash) every this many ms. Default 1000; 0 turns it off. */
  pollIntervalMs?: number;
  /** First retry delay, doubled each attempt. Default 1000. */
  retryBaseDelayMs?: number;
  /** Ceiling of the retry delay. Default 300000 (5 minutes). */
  retryMaxDelayMs?: number;
  /**
   * How long a delivery for an invoice not known yet is retried (the webhook may win the race against the
   * checkout's commit, or the invoice was created elsewhere) before it is dead-lettered with an alert. While it
   * waits, the service is not asked again. Default 3600000 (1 hour): the checkout writes its record before it
   * creates the invoice, so a record that is still missing after that is not this store's.
   */
  unknownInvoiceWindowMs?: number;
  /** Attempts before an entry that keeps failing for another reason (database errors) is dead-lettered. Default 20. */
  maxAttempts?: number;
  /** How long a processor holds a claimed entry; a crashed processor's claim lapses after it. Default 60000. */
  leaseMs?: number;
  /** Entries claimed per poll. Default 50. */
  batchSize?: number;
  /**
   * Lookups at the service for invoices this store has no record of, per `unknownLookupWindowMs` (default 60 per
   * 60000 ms). Each such invoice is looked up once: the service not knowing it dead-letters the delivery (and later
   * ones for it) at once; knowing it, the delivery waits for a record without asking again. Past the limit such
   * deliveries wait for the next window. Bounds what a leaked valid token can cost the service.
   */
  unknownLookupsPerWindow?: number;
  unknownLookupWindowMs?: number;
  /**
   * How long finished entries (processed, ignored, dead) are kept, in ms, before the processor deletes them (hourly).
   * Default 2592000000 (30 days); keep it above the service's retry horizon so retries are still recognized.
   */
  retentionMs?: number;
}

/** {@link WebhooksOptions} with every default filled in. */
export interface ResolvedWebhooksOptions {
  path: string;
  bodyLimitBytes: number;
  merchantToken: string | null;
  allowEmptyMerchantPart: boolean;
  lookupWindowMs: number;
  lookupsPerSecond: number;
  /** Deepest JSON nesting accepted in a delivery body; deeper → 400 before anything else. */
  maxJsonDepth: number;
  inbox: Required<WebhookInboxOptions>;
}

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

/** Where deliveries are received (`webhooks.path`). */
const DEFAULT_WEBHOOK_PATH = 'webhooks/invoice-payments';

export function resolveWebhooksOptions(options: WebhooksOptions = {}): ResolvedWebhooksOptions {
  const path = (options.path ?? DEFAULT_WEBHOOK_PATH).replace(/^\/+|\/+$/g, '');
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
    inbox: resolveNumbers('webhooks.inbox', WEBHOOK_INBOX, options.inbox),
  };
}
