/** Injection token of `GatewayClientOptions`. */
export const GATEWAY_CLIENT_OPTIONS = 'INVOICE_PAYMENTS_GATEWAY_CLIENT_OPTIONS';

/** Page size limit of every list operation (§4.1, §8). */
export const MAX_PAGE_SIZE = 100;

/** Paths relative to `{base_url}`: spec §4 where shown, A5/A10 where not. */
export const DEFAULT_PATHS = {
  invoices: '/invoices',
  tracking: '/invoices/tracking',
  webhooks: '/webhooks',
  authenticate: '/auth/token',
  credentialStatus: '/auth/status',
  consumers: '/consumers',
  mediations: '/disputes/mediations',
  chargebacks: '/disputes/chargebacks',
} as const;

/** `payment.type` values (A3). */
export const DEFAULT_PAYMENT_TYPES = { pix: 1, billet: 2, card: 3 } as const;

/** `payment.product_type` values (A3). */
export const DEFAULT_PRODUCT_TYPES = { physical: 1, digital: 2 } as const;

/** Query parameter names of `listInvoices` (A7). */
export const DEFAULT_LIST_QUERY = {
  page: 'page',
  limit: 'limit',
  status: 'status',
  referrer: 'referrer',
  paymentId: 'payment_id',
  createdFrom: 'created_from',
  createdTo: 'created_to',
} as const;

/** Per-request timeouts in ms: `createMs` for creation, `readMs` for reads, `defaultMs` for everything else. */
export const DEFAULT_TIMEOUTS = { defaultMs: 15_000, createMs: 30_000, readMs: 10_000 } as const;

/**
 * Retries of safe requests: `maxAttempts` counts the first one; delays grow exponentially from `initialDelayMs` up to
 * `maxDelayMs` with full jitter; a 429's `Retry-After` is waited for when at most `maxRetryAfterMs`.
 */
export const DEFAULT_RETRY = {
  maxAttempts: 3,
  initialDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 10_000,
} as const;

/** Scope each operation needs (§5; A10 for consumers and disputes). */
export const OPERATION_SCOPES: Readonly<Record<string, string>> = {
  listInvoices: 'invoice.read',
  iterateInvoices: 'invoice.read',
  findInvoiceByReferrer: 'invoice.read',
  createInvoice: 'invoice.write',
  changeDueDate: 'invoice.update',
  cancelInvoice: 'invoice.update',
  addTrackingCode: 'invoice.update',
  refundInvoice: 'invoice.refund',
  listConsumers: 'consumer.read',
  listMediations: 'dispute.read',
  listChargebacks: 'dispute.read',
};
