import type { WireTemplate } from './wire-template';

/**
 * The wire profile: every convention this client follows where the spec says "not shown", in one typed object.
 * `DEFAULT_WIRE_PROFILE` is what `docs/gateway-assumptions.md` states and what the sandbox does; a service that chose
 * differently is reached by overriding parts of it (`gateway.profile` in the module options, or `wireProfile` in the
 * admin settings for the plain-data parts), never by changing code. Paths into JSON answers are dotted
 * (`pagination.page`); `null` means "the service does not send it".
 */
export interface WireProfile {
  /** Paths of the operations, relative to `{base_url}` (§4; A10 for consumers and disputes). */
  paths: { invoices: string; webhooks: string; consumers: string; mediations: string; chargebacks: string };
  /** `payment.type` and `payment.product_type` numbers (A3). */
  codes: WireCodes;
  /** How list requests are asked and list answers read (A7, A10). */
  list: WireListProfile;
  /** How one invoice is found by the checkout's referrer and by the service's id (A7). */
  lookup: { byReferrer: InvoiceLookup; byId: InvoiceLookup };
  /** The refund request (A8). Template values: `id`, `invoice_id`, `amount`, `amount_decimal`, `amount_cents`. */
  refund: WireRequestPlan;
  /** The tracking request (A9). Template values: `invoice_id`, `code`, `carrier`, `url`. */
  tracking: WireRequestPlan;
  /**
   * Where an invoice shows what a write left, read back before a write whose answer was lost is sent again:
   * `trackingCode`, the dotted path of its last tracking code (A9), `null` when the service does not show it.
   */
  readBack: { trackingCode: string | null };
  /** Authenticate (A5); `null` when the service has no such operation. */
  authenticate: WireAuthenticate | null;
  /** Credential status (A5); `null` when the service has none (the credential check then probes). */
  credentialStatus: WireCredentialStatus | null;
  /**
   * Per write scope, a request the service must refuse as invalid (400/422) when the token holds the scope, and
   * with 401/403 when it does not; its body must be unable to create, change or refund anything.
   */
  credentialProbes: Record<WriteScope, { method: WireRequestPlan['method']; path: string; body: unknown }>;
  /** Where a webhook delivery carries its invoice and its metadata (A13). */
  webhook: WireWebhookProfile;
}

export interface WireCodes {
  paymentTypes: { pix: number; billet: number; card: number };
  productTypes: { physical: number; digital: number };
}

export interface WireListProfile {
  /** Query parameter names. `id` is the invoice-number filter the default `lookup.byId` uses. */
  query: {
    page: string;
    limit: string;
    status: string;
    referrer: string;
    paymentId: string;
    createdFrom: string;
    createdTo: string;
    id: string;
  };
  /** Where each list's items are. */
  items: { invoices: string; consumers: string; mediations: string; chargebacks: string };
  /**
   * Where the page counters are. `pages` absent → computed from `total` and the page size; both absent → paging
   * stops at the first page shorter than the size asked for.
   */
  page: string | null;
  pages: string | null;
  total: string | null;
  limit: string | null;
}

/**
 * How one invoice is looked up: `{ list: <filter> }`, a list request with that filter set to the value, every page
 * read (at most `maxPages`) and only exact matches counted; or `{ get: '/invoices/{value}', at: 'charge' }`, one
 * request answering one invoice (at the dotted path `at`, else the whole answer), 404 meaning "none".
 */
export type InvoiceLookup =
  | { list: keyof WireListProfile['query']; maxPages?: number }
  | { get: string; at?: string; maxPages?: never };

/** A request whose body is a template (see `wire-template.ts`) or, in module options only, a function. */
export interface WireRequestPlan {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path relative to `{base_url}`. */
  path: string;
  body: WireTemplate | ((values: Record<string, unknown>) => unknown);
}

export interface WireAuthenticate {
  method: 'GET' | 'POST';
  path: string;
  /** `basic`: `Authorization: Basic base64(id:secret)`; `body`: the template with `client_id`, `client_secret`. */
  credentials: 'basic' | 'body';
  body?: WireTemplate;
  answer: { accessToken: string; tokenType: string | null; expiresIn: string | null; scopes: string | null };
}

export interface WireCredentialStatus {
  path: string;
  /** `active: null` → a 2xx answer means active. */
  answer: { active: string | null; scopes: string | null; expiresAt: string | null };
}

export type WriteScope = 'invoice.write' | 'invoice.update' | 'invoice.refund';

export interface WireWebhookProfile {
  /**
   * Paths tried in order: the first that holds an object is the invoice, or an envelope around it (`invoice` or
   * `fatura` inside). `''` is the body itself.
   */
  invoice: string[];
  event: string[];
  deliveryId: string[];
  webhookId: string[];
  sentAt: string[];
  /** Paths whose value `true` marks a synthetic test delivery (A14). */
  test: string[];
  /** A reader of your own (module options only): the invoice object (either shape) and the metadata. */
  read?: (body: Record<string, unknown>) => {
    invoice: unknown;
    event?: string | null;
    deliveryId?: string | null;
    webhookId?: string | null;
    sentAt?: string | null;
    test?: boolean;
  };
}

/** Overrides of a profile: any part, any depth. Plain values replace; objects merge; arrays replace. */
export type WireProfileOverrides = DeepPartial<WireProfile>;

type DeepPartial<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends unknown[]
    ? T
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> | (null extends T[K] ? null : never) }
      : T;

/** The conventions of `docs/gateway-assumptions.md` (A3, A5, A7–A10, A13), which the sandbox follows. */
export const DEFAULT_WIRE_PROFILE: WireProfile = {
  paths: {
    invoices: '/invoices',
    webhooks: '/webhooks',
    consumers: '/consumers',
    mediations: '/disputes/mediations',
    chargebacks: '/disputes/chargebacks',
  },
  codes: { paymentTypes: { pix: 1, billet: 2, card: 3 }, productTypes: { physical: 1, digital: 2 } },
  list: {
    query: {
      page: 'page',
      limit: 'limit',
      status: 'status',
      referrer: 'referrer',
      paymentId: 'payment_id',
      createdFrom: 'created_from',
      createdTo: 'created_to',
      id: 'id',
    },
    items: {
      invoices: 'invoices',
      consumers: 'consumers',
      mediations: 'mediations',
      chargebacks: 'chargebacks',
    },
    page: 'pagination.page',
    pages: 'pagination.pages',
    total: 'pagination.total',
    limit: 'pagination.limit',
  },
  lookup: { byReferrer: { list: 'referrer' }, byId: { list: 'id' } },
  refund: {
    method: 'PUT',
    path: '/invoices',
    body: { payment: { id: '{id}', invoice_id: '{invoice_id}', amount: '{amount}' } },
  },
  tracking: {
    method: 'POST',
    path: '/invoices/tracking',
    body: {
      payment: { invoice_id: '{invoice_id}' },
      tracking: { code: '{code}', carrier: '{carrier}', url: '{url}' },
    },
  },
  readBack: { trackingCode: 'tracking.code' },
  authenticate: {
    method: 'GET',
    path: '/auth/token',
    credentials: 'basic',
    answer: {
      accessToken: 'access_token',
      tokenType: 'token_type',
      expiresIn: 'expires_in',
      scopes: 'scopes',
    },
  },
  credentialStatus: {
    path: '/auth/status',
    answer: { active: 'active', scopes: 'scopes', expiresAt: 'expires_at' },
  },
  credentialProbes: {
    'invoice.write': { method: 'POST', path: '/invoices', body: {} },
    'invoice.update': { method: 'DELETE', path: '/invoices', body: { payment: {} } },
    'invoice.refund': { method: 'PUT', path: '/invoices', body: { payment: {} } },
  },
  webhook: {
    invoice: ['invoice', 'fatura', 'data', 'payload'],
    event: ['event', 'data.event', 'payload.event'],
    deliveryId: ['delivery_id', 'data.delivery_id', 'payload.delivery_id'],
    webhookId: ['webhook', 'data.webhook', 'payload.webhook'],
    sentAt: ['sent_at', 'data.sent_at', 'payload.sent_at'],
    test: ['test', 'data.test', 'payload.test'],
  },
};

/** Lookups that walk a list read at most this many pages by default (10,000 invoices at 100 a page). */
export const DEFAULT_LOOKUP_MAX_PAGES = 100;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `base` with `overrides` laid over it, in order: objects merge key by key, anything else (values, arrays,
 * functions, `null`) replaces. Templates (`body`, probe bodies) and lookups replace whole, never merge.
 */
export function mergeWireProfile(
  base: WireProfile,
  ...overrides: Array<WireProfileOverrides | null | undefined>
): WireProfile {
  let out: unknown = base;
  for (const o of overrides) if (o) out = mergeAt(out, o, []);
  return out as WireProfile;
}

/** Keys whose value replaces whole instead of merging. */
const WHOLE = new Set(['body', 'byReferrer', 'byId']);

function mergeAt(base: unknown, over: unknown, path: string[]): unknown {
  if (!isPlainObject(base) || !isPlainObject(over) || WHOLE.has(path[path.length - 1] ?? '')) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = key in base ? mergeAt(base[key], value, [...path, key]) : value;
  }
  return out;
}

/** The value at a dotted path (`''` is the value itself); `undefined` when any step is missing. */
export function valueAt(value: unknown, path: string): unknown {
  if (path === '') return value;
  let node = value;
  for (const key of path.split('.')) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}
