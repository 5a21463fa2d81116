import type { Cents } from './money';

/** How an invoice is paid. */
export type PaymentMethod = 'pix' | 'billet' | 'card';

/**
 * One invoice, the same whichever response shape it came from (current §2.1 or legacy §2.2).
 * Money is in integer cents; `raw` keeps the payload it was read from.
 */
export interface Invoice {
  /** Invoice number (`id`): the cancellation operation's key. */
  id: string;
  /** `uuid`, always a string (the legacy shape sends a number). `null` when the response omits it. */
  uuid: string | null;
  /** `invoice_id`: the key of due-date change, refund and tracking. */
  invoiceId: string;
  token: string | null;
  /** The reference sent at creation (`referrer` / `referencia`). */
  referrer: string | null;
  currency: string | null;
  status: {
    /** `status.code` (§3). A cancellation response without a code reads as 6 when `text` is `canceled`. */
    code: number;
    text: string;
    subText: string | null;
    title: string | null;
    description: string | null;
  };
  /** Inferred from the payload: card data → card, a bank-slip line → billet, else PIX data → pix. */
  method: PaymentMethod | null;
  amounts: {
    grossCents: Cents | null;
    netCents: Cents | null;
    feesCents: Cents | null;
    discountCents: Cents | null;
    shippingCents: Cents | null;
    paidCents: Cents | null;
  };
  pix: {
    image: string | null;
    payload: string | null;
    status: string | null;
    endToEndId: string | null;
  } | null;
  billet: { line: string | null; barcode: string | null; url: string | null } | null;
  /** Card summary: brand and last four digits, nothing more. */
  card: { brand: string | null; last4: string | null } | null;
  installments: number | null;
  /** Current due day, `YYYY-MM-DD`. */
  dueDate: string | null;
  /** Original due day, `YYYY-MM-DD`. */
  originalDueDate: string | null;
  /** `YYYY-MM-DD HH:MM:SS`, service time. */
  createdAt: string | null;
  paymentUrl: string | null;
  refunds: { possible: boolean | null; totalCents: Cents | null; date: string | null };
  /** Which response shape it came from, and the reported interface version. */
  source: { shape: 'current' | 'legacy'; version: string | null };
  /** The payload as received. */
  raw: unknown;
}

/** An address as `client.address` carries it (§4.2). */
export interface InvoiceAddress {
  street: string;
  number: string;
  district: string;
  city: string;
  /** Two-letter state (UF for Brazil). */
  state: string;
  /** Digits only. */
  zipcode: string;
  /** ISO 3166-1 alpha-3. */
  country: string;
}

/**
 * What `createInvoice` takes: the fields of §4.2 with money in cents and the method named, not numbered.
 * The client turns it into the wire body (`payment.type`, decimal amounts) using its options.
 */
export interface CreateInvoiceParams {
  client: {
    name?: string;
    /** CPF or CNPJ, digits (or CNPJ letters) only. */
    document?: string;
    email?: string;
    phone?: string;
    address?: InvoiceAddress;
    ip?: string;
  };
  ecommerce?: { storeId: number; checkout: number };
  payment: {
    method: PaymentMethod;
    /** At least one product is physical: `client.address` is required (→ `payment.product_type`). */
    physical: boolean;
    /** The merchant's internal identifier (`payment.id`). */
    id: string;
    /** `payment.referrer`. */
    referrer: string;
    /** `YYYY-MM-DD`. */
    dueAt?: string;
    installments?: number;
    orderUrl?: string;
    storeUrl?: string;
    webhook?: string;
    discountCents?: Cents;
    products: Array<{
      id: string;
      image?: string;
      title: string;
      quantity: number;
      /** Discount on the line, in cents. */
      discountCents: Cents;
      /** Unit price in cents. */
      unitAmountCents: Cents;
    }>;
    card?: {
      /** Token produced by the service's client-side script. */
      token: string;
      /** Expiry `MM/YY`. */
      valid: string;
      holderName: string;
    };
  };
  shippingCents?: Cents;
}

/** One page of a list operation. `total` and `pages` are `null` when the service does not say (wire profile). */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number | null;
  pages: number | null;
}

/** Filters of `listInvoices` (A7). */
export interface ListInvoicesParams {
  page?: number;
  /** 1 to 100. */
  limit?: number;
  status?: number;
  referrer?: string;
  paymentId?: string;
  createdFrom?: string;
  createdTo?: string;
}

export interface RefundParams {
  /** Invoice number (`id`). */
  id: string;
  invoiceId: string;
  /** Amount to refund in cents; must be positive and not above what was paid and not yet refunded. */
  amountCents: Cents;
  /** What was paid and not yet refunded, when the caller knows it: checked before sending. */
  refundableCents?: Cents;
}

export interface TrackingParams {
  invoiceId: string;
  code: string;
  carrier?: string;
  url?: string;
}

export interface TrackingResult {
  invoiceId: string;
  code: string;
  carrier: string | null;
  url: string | null;
  createdAt: string | null;
}

/** Result of `authenticate` (A5). */
export interface AccessToken {
  accessToken: string;
  tokenType: string;
  /** Lifetime in seconds, as the service said. */
  expiresIn: number | null;
  scopes: string[];
}

/** Result of `credentialStatus` (A5). */
export interface CredentialStatus {
  active: boolean;
  scopes: string[];
  /** `YYYY-MM-DD HH:MM:SS` service time; `null` for a token that never expires. */
  expiresAt: string | null;
}

/** A customer record (A10). */
export interface Consumer {
  id: string;
  name: string | null;
  document: string | null;
  email: string | null;
  createdAt: string | null;
  raw: unknown;
}

/** A mediation or chargeback record (A10). */
export interface Dispute {
  id: string;
  /** The disputed invoice's `invoice_id`. */
  invoiceId: string | null;
  status: string | null;
  reason: string | null;
  amountCents: Cents | null;
  createdAt: string | null;
  raw: unknown;
}

/** Result of `resendWebhook` (§4.8). */
export interface ResendWebhookResult {
  success: boolean;
  event: string | null;
  total: number;
  responses: Array<{
    events: string | null;
    webhook: string | null;
    action: string | null;
    /** HTTP status the destination answered. */
    httpStatus: number | null;
    update: string | null;
    version: string | null;
  }>;
}
