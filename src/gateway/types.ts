import type { Cents } from './money';

export type PaymentMethod = 'pix' | 'billet' | 'card';

/** One invoice, whichever response shape it came from (§2.1, §2.2); money in integer cents. */
export interface Invoice {
  /** Invoice number (`id`): the cancellation operation's key. */
  id: string;
  /** Always a string (the legacy shape sends a number). */
  uuid: string | null;
  /** `invoice_id`: the key of due-date change, refund and tracking. */
  invoiceId: string;
  token: string | null;
  /** The reference sent at creation. */
  referrer: string | null;
  currency: string | null;
  status: {
    /** `status.code` (§3); a cancellation answer without one reads as 6. */
    code: number;
    text: string;
    subText: string | null;
    title: string | null;
    description: string | null;
  };
  /** Named by the invoice, else inferred from its card, bank-slip or PIX data. */
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
  card: { brand: string | null; last4: string | null } | null;
  installments: number | null;
  /** `YYYY-MM-DD`. */
  dueDate: string | null;
  originalDueDate: string | null;
  /** `YYYY-MM-DD HH:MM:SS`, service time. */
  createdAt: string | null;
  paymentUrl: string | null;
  refunds: { possible: boolean | null; totalCents: Cents | null; date: string | null };
  source: { shape: 'current' | 'legacy'; version: string | null };
  /** The payload as received, card secrets redacted. */
  raw: unknown;
}

export interface InvoiceAddress {
  street: string;
  number: string;
  district: string;
  city: string;
  /** UF for Brazil. */
  state: string;
  zipcode: string;
  /** ISO 3166-1 alpha-3. */
  country: string;
}

/** The fields of §4.2 with money in cents and the method named, not numbered. */
export interface CreateInvoiceParams {
  client: {
    name?: string;
    /** CPF or CNPJ, unformatted. */
    document?: string;
    email?: string;
    phone?: string;
    address?: InvoiceAddress;
    ip?: string;
  };
  ecommerce?: { storeId: number; checkout: number };
  payment: {
    method: PaymentMethod;
    /** At least one product is physical: `client.address` is required. */
    physical: boolean;
    /** The merchant's identifier (`payment.id`). */
    id: string;
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
      /** On the line. */
      discountCents: Cents;
      unitAmountCents: Cents;
    }>;
    card?: {
      /** From the service's client-side script. */
      token: string;
      /** `MM/YY`. */
      valid: string;
      holderName: string;
    };
  };
  shippingCents?: Cents;
}

/** `total` and `pages` are `null` when the service does not say. */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number | null;
  pages: number | null;
}

export interface ListInvoicesParams {
  page?: number;
  limit?: number;
  status?: number;
  referrer?: string;
  paymentId?: string;
  createdFrom?: string;
  createdTo?: string;
}

export interface RefundParams {
  id: string;
  invoiceId: string;
  amountCents: Cents;
  /** What was paid and not yet refunded, when known: checked before sending. */
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

export interface AccessToken {
  accessToken: string;
  tokenType: string;
  /** Seconds. */
  expiresIn: number | null;
  scopes: string[];
}

export interface CredentialStatus {
  active: boolean;
  scopes: string[];
  /** Service time; `null`: never expires. */
  expiresAt: string | null;
}

export interface Consumer {
  id: string;
  name: string | null;
  document: string | null;
  email: string | null;
  createdAt: string | null;
  raw: unknown;
}

export interface Dispute {
  id: string;
  invoiceId: string | null;
  status: string | null;
  reason: string | null;
  amountCents: Cents | null;
  createdAt: string | null;
  raw: unknown;
}

export interface ResendWebhookResult {
  success: boolean;
  event: string | null;
  total: number;
  responses: Array<{
    events: string | null;
    webhook: string | null;
    action: string | null;
    httpStatus: number | null;
    update: string | null;
    version: string | null;
  }>;
}
