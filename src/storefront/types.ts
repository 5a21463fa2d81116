/**
 * What `<invoice-payment>` reads and calls. These types are the same whatever the host (Nest, Medusa, Vendure): the
 * status route of each answers a {@link PaymentView}.
 */

/** Where a payment stands, from the shopper's side. */
export type PaymentState = 'waiting' | 'processing' | 'paid' | 'expired' | 'canceled' | 'failed' | 'refunded';

/** How the shopper pays. */
export type PaymentMethod = 'pix' | 'billet' | 'card';

/** One payment as the store's status route answers it (JSON). Amounts are exact decimal strings, never floats. */
export interface PaymentView {
  method: PaymentMethod;
  state: PaymentState;
  /** `"123.45"`. */
  amount: string;
  /** `"BRL"`. */
  currency: string;
  /** The service's invoice number; null before it is known. */
  invoiceNumber: string | null;
  pix: { payload: string | null; image: string | null; expiresAt: string | null } | null;
  billet: { line: string | null; barcode: string | null; url: string | null; dueAt: string | null } | null;
  card: { brand: string | null; last4: string | null; installments: number | null } | null;
  /** An expired PIX may get a new code through the store. */
  renewable: boolean;
  /** The order's "what now" page, when the host knows one. */
  orderUrl: string | null;
}

/**
 * A payment's view for hosts whose status route is not REST (Vendure's shop API): `load` answers the view,
 * `renew` (optional) asks the store for a new PIX code and answers the new view.
 */
export interface PaymentSource {
  load(): Promise<PaymentView>;
  renew?(): Promise<PaymentView>;
}

/** The card as the service's tokenization script returned it, with what the store needs to charge it. */
export interface CardPayment {
  /** The service's card token: the only card secret the store ever sees. */
  token: string;
  /** `MM/YY`. */
  expiry: string;
  holderName: string;
  installments: number;
  brand: string | null;
  last4: string | null;
}

/**
 * The store's hook that creates the card payment (the `pay` property): it answers the payment's view, or the
 * status URL to poll (`{ src }`). A rejection whose `code` is `card_declined` (or a view in `failed`) is shown as a
 * decline, with a retry.
 */
export type PayHook = (card: CardPayment) => Promise<PaymentView | { src: string }>;

/** What the service's tokenization script takes (docs/gateway-assumptions.md, A12). */
export interface CardInput {
  number: string;
  holderName: string;
  expiry: string;
  cvv: string;
}

/** What the service's tokenization script resolves. */
export interface TokenizedCard {
  token: string;
  brand?: string | null;
  last4?: string | null;
}

/** `detail` of the element's `statechange` and `paid` events. */
export interface PaymentEventDetail {
  state: PaymentState;
  view: PaymentView;
}
