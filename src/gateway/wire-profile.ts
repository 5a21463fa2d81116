import { asRecord } from './json';
import type { ListInvoicesParams, PaymentMethod } from './types';

/** The conventions where the spec says "not shown" (`docs/wire-profile.md`); dotted paths, `null`: not sent. */
export interface WireProfile {
  paths: Record<ListKind | 'webhooks', string>;
  codes: WireCodes;
  list: WireListProfile;
  lookup: { byReferrer: InvoiceLookup; byId: InvoiceLookup };
  /** Template values: `id`, `invoice_id`, `amount`, `amount_decimal`, `amount_cents`, `amount_brl`. */
  refund: WireRequestPlan;
  /** Template values: `invoice_id`, `code`, `carrier`, `url`. */
  tracking: WireRequestPlan;
  /** Where an invoice shows its last tracking code, read back before a lost tracking post is sent again. */
  readBack: { trackingCode: string | null };
  authenticate: WireAuthenticate | null;
  credentialStatus: WireCredentialStatus | null;
  /** Per write scope, an invalid request (400/422 with the scope, 401/403 without) unable to change anything. */
  credentialProbes: Record<WriteScope, { method: WireRequestPlan['method']; path: string; body: unknown }>;
  webhook: WireWebhookProfile;
  /**
   * The IANA time zone the service counts its days in (A2): its today (a due day before it is refused), a due day's
   * end (midnight there) and the days of `created_from`. Its `YYYY-MM-DD HH:MM:SS` timestamps are local time there.
   */
  timeZone: string;
  /**
   * What a product's `discount` takes off (A1): `line`, the whole line (`amount × qnt − discount`); `unit`, each unit
   * (`(amount − discount) × qnt`), a line whose discount does not divide by its quantity then sent as two products.
   */
  productDiscount: ProductDiscountRule;
}

/** The values of `WireProfile.productDiscount`. */
export const PRODUCT_DISCOUNT_RULES = ['line', 'unit'] as const;
export type ProductDiscountRule = (typeof PRODUCT_DISCOUNT_RULES)[number];

export type ListKind = 'invoices' | 'consumers' | 'mediations' | 'chargebacks';

export interface WireCodes {
  paymentTypes: Record<PaymentMethod, number>;
  productTypes: { physical: number; digital: number };
}

export interface WireListProfile {
  /** Query parameter names: a list's filters, and `id` for `lookup.byId`. */
  query: Record<keyof ListInvoicesParams | 'id', string>;
  items: Record<ListKind, string>;
  /** Without `pages` and `total`, paging stops at the first page shorter than asked. */
  page: string | null;
  pages: string | null;
  total: string | null;
  limit: string | null;
}

/** A list request filtered by the value (exact matches counted), or one `get` answering the invoice (404: none). */
export type InvoiceLookup =
  | { list: keyof WireListProfile['query']; maxPages?: number }
  | { get: string; at?: string; maxPages?: never };

/** A request whose body is a template or, in module options only, a function. */
export interface WireRequestPlan {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body: WireTemplate | ((values: Record<string, unknown>) => unknown);
}

export interface WireAuthenticate {
  method: 'GET' | 'POST';
  path: string;
  /** `basic`: Basic authentication; `body`: the template with `client_id`, `client_secret`. */
  credentials: 'basic' | 'body';
  body?: WireTemplate;
  answer: { accessToken: string; tokenType: string | null; expiresIn: string | null; scopes: string | null };
}

export interface WireCredentialStatus {
  path: string;
  /** `active: null`: a 2xx answer means active. */
  answer: { active: string | null; scopes: string | null; expiresAt: string | null };
}

export type WriteScope = 'invoice.write' | 'invoice.update' | 'invoice.refund';

export interface WireWebhookProfile {
  /** Paths tried in order: the first holding an object is the invoice or its envelope; `''` is the body. */
  invoice: string[];
  event: string[];
  deliveryId: string[];
  webhookId: string[];
  sentAt: string[];
  /** Paths whose value `true` marks a test delivery (A14). */
  test: string[];
  /** A reader of your own (module options only). */
  read?: (body: Record<string, unknown>) => {
    invoice: unknown;
    event?: string | null;
    deliveryId?: string | null;
    webhookId?: string | null;
    sentAt?: string | null;
    test?: boolean;
  };
}

/** Overrides of a profile, any part at any depth: objects merge, anything else replaces. */
export type WireProfileOverrides = DeepPartial<WireProfile>;

type DeepPartial<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends unknown[]
    ? T
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> | (null extends T[K] ? null : never) }
      : T;

/** The conventions of `docs/gateway-assumptions.md`, which the sandbox follows. */
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
  timeZone: 'America/Sao_Paulo',
  productDiscount: 'line',
};

/** `base` with `overrides` laid over it; templates and lookups replace whole. */
export function mergeWireProfile(base: WireProfile, overrides?: WireProfileOverrides | null): WireProfile {
  return (overrides ? mergeAt(base, overrides) : base) as WireProfile;
}

const REPLACED_WHOLE = new Set(['body', 'byReferrer', 'byId']);

function mergeAt(base: unknown, over: unknown, key = ''): unknown {
  const [b, o] = [asRecord(base), asRecord(over)];
  if (!b || !o || REPLACED_WHOLE.has(key)) return over;
  const out = { ...b };
  for (const [k, value] of Object.entries(o)) {
    if (value !== undefined) out[k] = k in b ? mergeAt(b[k], value, k) : value;
  }
  return out;
}

/** JSON with `{name}` placeholders: a whole-string one keeps the value's type (absent: member dropped). */
export type WireTemplate =
  string | number | boolean | null | WireTemplate[] | { [key: string]: WireTemplate };
