import type { PaymentSessionStatus } from '../domain/status-table';
import type { Cents } from '../gateway/money';
import type { CreateInvoiceParams, PaymentMethod } from '../gateway/types';
import type { RecognisedOrder } from '../persistence/invoice.entity';
import type { sessionDataOf } from './session-data';

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
export type PaymentWebhookAction =
  'authorized' | 'captured' | 'failed' | 'pending' | 'requires_more' | 'canceled' | 'not_supported';

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
