import { sessionStatusOfCode, type PaymentSessionStatus } from '../domain/status-table';
import type { Cents } from '../gateway/money';
import type { CreateInvoiceParams, PaymentMethod } from '../gateway/types';
import type { InvoiceRecord, RecognisedOrder } from '../persistence/invoice.entity';

/** A Medusa-style order as the host hands it to the checkout. Amounts are integer cents, taxes included. */
export interface CheckoutOrder {
  /** The host's order id: sent as `payment.id`, and the key of "one open invoice per order". */
  id: string;
  /** Human order number (Medusa's `display_id`): the default order reference. */
  display_id?: string | number;
  /** Unique across the store (`payment.referrer` is `<reference>-<attempt>`); default `display_id`, then `id`. */
  reference?: string;
  /** Must be `BRL` (any case). */
  currency_code: string;
  /** What the customer pays: items − discounts + shipping. */
  total: Cents;
  items: CheckoutOrderItem[];
  shipping_total?: Cents;
  /** All discounts of the order, the items' `discount_total` included (Medusa's meaning). */
  discount_total?: Cents;
  customer: CheckoutCustomer;
  shipping_address?: CheckoutAddress | null;
  /** The customer's IP address (`client.ip`). */
  customer_ip?: string;
}

export interface CheckoutOrderItem {
  /** Sent as the product's `id`. */
  id: string;
  title: string;
  /** Image URL, sent as the product's `image`. */
  thumbnail?: string | null;
  quantity: number;
  unit_price: Cents;
  /** Discount on the whole line (not per unit). */
  discount_total?: Cents;
  /** A physical item: the order then needs a shipping address (`client.address`). Default `true`. */
  requires_shipping?: boolean;
}

export interface CheckoutCustomer {
  /** Full name; defaults to `first_name last_name`. */
  name?: string;
  first_name?: string;
  last_name?: string;
  /** Required for international customers (an address outside Brazil). */
  email?: string;
  phone?: string;
  /** CPF or CNPJ (numeric or alphanumeric), punctuation allowed. Required for domestic customers. */
  document?: string;
}

/** A Medusa-style address with the two fields Brazilian stores add: `number` and `district`. */
export interface CheckoutAddress {
  address_1?: string;
  address_2?: string | null;
  /** House number; default: the number after the last comma of `address_1`, else `S/N`. */
  number?: string;
  /** Neighbourhood (bairro); default: `address_2`. */
  district?: string;
  city?: string;
  /** Two-letter state (UF for Brazil). */
  province?: string;
  postal_code?: string;
  /** ISO 3166-1 alpha-2 (`br`, `BR`); converted to alpha-3 on the wire. */
  country_code?: string;
}

/** Card data from the storefront: the token comes from the service's tokenization script, never a card number. */
export interface CheckoutCard {
  token: string;
  /** Card expiry, `MM/YY`. */
  expiry: string;
  holder_name: string;
}

/** What the storefront chose at checkout: `data` of {@link InitiatePaymentInput}. */
export interface InitiatePaymentData {
  order: CheckoutOrder;
  method: PaymentMethod;
  /** Required for `card`. */
  card?: CheckoutCard;
  /** Card only: 1 to the most installments the store offers (a setting). PIX and bank slip are always 1. */
  installments?: number;
}

/**
 * A payment session's data (Medusa keeps it on the session): what the storefront shows (PIX code, bank slip...), as
 * {@link sessionDataOf} builds it from the invoice record.
 */
export type InvoicePaymentSessionData = ReturnType<typeof sessionDataOf> & {
  /** From `initiatePayment` only: the shopper's status token (never stored by the module; keep it with the order). */
  statusToken?: string;
} & Record<string, unknown>;

/** Medusa's `initiatePayment` input; `amount` must equal `order.total`. */
export type CheckoutRequest = Omit<InitiatePaymentInput, 'context'>;

/** An order mapped to the service's create-invoice parameters (`params` for attempt 1: see `withReferrer`). */
export interface MappedInvoice {
  params: CreateInvoiceParams;
  reference: string;
  totalCents: Cents;
  method: PaymentMethod;
  shown: RecognisedOrder;
}

/** Medusa's `PaymentProviderContext`; informational here. */
export interface PaymentProviderContext {
  idempotency_key?: string;
  customer?: { id?: string; email?: string };
  [key: string]: unknown;
}

/** Medusa's `InitiatePaymentInput`: `amount` in cents, equal to the order total. */
export interface InitiatePaymentInput {
  amount: Cents;
  currency_code: string;
  data: InitiatePaymentData;
  context?: PaymentProviderContext;
}

/** Medusa's `InitiatePaymentOutput`. */
export interface InitiatePaymentOutput {
  id: string;
  data: InvoicePaymentSessionData;
  status: PaymentSessionStatus;
}

/** Input of the methods that act on an existing session. */
export interface PaymentSessionInput {
  data: Pick<InvoicePaymentSessionData, 'invoiceRecordId'> & Record<string, unknown>;
  context?: PaymentProviderContext;
}

export type PaymentSessionOutput = Pick<InitiatePaymentOutput, 'data'>;
export type PaymentStatusOutput = Omit<InitiatePaymentOutput, 'id'>;

export interface RefundPaymentInput extends PaymentSessionInput {
  /** Cents to refund; at most what was paid and not yet refunded. */
  amount: Cents;
  /** Names the refund: the same key never refunds twice (default `context.idempotency_key`; docs/refunds.md). */
  idempotencyKey?: string;
  /** Who asked, kept on the refund's ledger row (default `provider`). */
  requestedBy?: string;
}

/** Medusa's `UpdatePaymentInput`: a new `amount`, `method` or `order` replaces the open invoice. */
export interface UpdatePaymentInput extends Omit<InitiatePaymentInput, 'data'> {
  /** The session's data with the new choices merged in; a card summary (`brand`, `last4`) there is ignored. */
  data: Pick<InvoicePaymentSessionData, 'invoiceRecordId'> &
    Partial<Omit<InitiatePaymentData, 'card'>> & {
      card?: CheckoutCard | InvoicePaymentSessionData['card'];
    } & Record<string, unknown>;
}

export interface ChangeDueDateInput extends PaymentSessionInput {
  /** New due day, `YYYY-MM-DD`, today or later in the store's time zone. */
  dueDate: string;
}

/** What a webhook delivery tells Medusa (`PaymentActions`). */
export type PaymentWebhookAction = Exclude<PaymentSessionStatus, 'error'> | 'failed' | 'not_supported';

/** Medusa's `ProviderWebhookPayload['payload']`. */
export interface ProviderWebhookPayload {
  /** The parsed body. */
  data: Record<string, unknown>;
  rawData: string | Buffer;
  headers: Record<string, unknown>;
}

/** Medusa's `WebhookActionResult`: `session_id` is the invoice record id, `amount` in cents. */
export interface WebhookActionResult {
  action: PaymentWebhookAction;
  data?: { session_id: string; amount: Cents };
}

/**
 * A payment session as the host and the storefront see it, built from the invoice record: read by the provider, the
 * admin API and the host contract's types above, so it stands on the core.
 */
export function sessionStatusOf(record: InvoiceRecord): PaymentSessionStatus {
  if (record.creationState === 'failed') return 'error';
  if (record.creationState !== 'created' && record.attentionReason) return 'requires_more';
  return sessionStatusOfCode(record.statusCode, record.amountMismatch) ?? 'pending';
}

/** What the storefront and the host keep of a payment attempt: the `InvoicePaymentSessionData`. */
export function sessionDataOf(record: InvoiceRecord) {
  return {
    /** The local invoice record: the session's id. */
    invoiceRecordId: record.id,
    orderId: record.orderId,
    attempt: record.attempt,
    referrer: record.referrer,
    method: record.method,
    creationState: record.creationState,
    /** The service's invoice number and `invoice_id`. */
    gatewayId: record.gatewayId,
    gatewayInvoiceId: record.gatewayInvoiceId,
    statusCode: record.statusCode,
    statusText: record.statusText,
    sessionStatus: sessionStatusOf(record),
    amountCents: record.amountCents,
    currency: record.currency,
    /** `YYYY-MM-DD`. */
    dueDate: record.dueDate,
    installments: record.installments,
    pix: given({ payload: record.pixPayload, image: record.pixImage }),
    billet: given({ line: record.billetLine, barcode: record.billetBarcode, url: record.billetUrl }),
    card: given({ brand: record.cardBrand, last4: record.cardLast4 }),
    paymentUrl: record.paymentUrl,
    refundedCents: record.refundedCents,
    /** The service's gross amount differed from the order total: a person should look. */
    amountMismatch: record.amountMismatch,
    /** While the creation's outcome is unknown: until when the request could still land (nothing new before). */
    confirmingUntil:
      record.creationState === 'created' || record.creationState === 'failed' || !record.settlesAt
        ? null
        : record.settlesAt.toISOString(),
    /** Why the module stopped deciding on its own (the session is `requires_more`; the admin API resolves it). */
    attentionReason: record.creationState === 'created' ? null : record.attentionReason,
    /** This invoice duplicates the order's invoice in that record: it was canceled, or (paid) alerted. */
    duplicateOf: record.duplicateOf,
  };
}

/** `null` unless some field is set. */
function given<T extends Record<string, string | null>>(fields: T): T | null {
  return Object.values(fields).some(Boolean) ? fields : null;
}
