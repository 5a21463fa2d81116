import type { WireAddress, WireInvoiceCurrent } from './wire.types';
import type { FaultRule, ActiveFault, WebhookFaults, DeliveryLogEntry } from './faults.types';
export type * from './faults.types';

/** Options of {@link startSandbox}. Every field is optional; the defaults suit most tests. */
export interface SandboxOptions {
  /** Port to listen on; default 0 (a free port). The host is always 127.0.0.1. */
  port?: number;
  /** Static bearer tokens (they never expire). Default: one token `sandbox-token` with every scope. */
  tokens?: Array<{ token: string; scopes: string[] }>;
  /**
   * Client credentials accepted by `GET /auth/token` (A5). Default: `sandbox-client` / `sandbox-secret` with every
   * scope.
   */
  clients?: Array<{ clientId: string; clientSecret: string; scopes: string[] }>;
  /** Account identifier sent in the `UserId` webhook header. Default `sandbox-account`. */
  accountId?: string;
  /** Sender name sent in the `Gateway` webhook header and in `api.by`. Default `sandbox`. */
  gatewayName?: string;
  /** Process card charges right after creation: 1 → 2 → 5 or 12 (A12). Default true. */
  autoProcessCards?: boolean;
  /** Delay between the steps of automatic card processing, in ms. Default 5. */
  cardProcessingDelayMs?: number;
  /** Webhook retry policy (A13): attempts (default 5), base delay in ms (200), factor (2), per-attempt timeout (5000). */
  webhookRetry?: { attempts?: number; baseDelayMs?: number; factor?: number; timeoutMs?: number };
  /** SQLite file (better-sqlite3): when set, invoices and registrations survive a restart. */
  persistPath?: string;
  /** Time source for dates, due dates and token expiry. Default: the real clock. */
  clock?: () => Date;
  /**
   * The IANA time zone the service counts its days and writes its times in (A2): its today (a due day before it is
   * refused), the default due day, `created_from`/`created_to`, card expiry and every `YYYY-MM-DD HH:MM:SS`.
   * Default `America/Sao_Paulo`; another stands in for a service that chose differently (the module follows it with
   * the wire profile's `timeZone`).
   */
  timeZone?: string;
  /**
   * What a product's `discount` takes off (A1): `line` (default), the whole line, gross counting
   * `amount × qnt − discount`; `unit`, each unit, `(amount − discount) × qnt`. `unit` stands in for a service that
   * chose differently (the module follows it with the wire profile's `productDiscount`).
   */
  productDiscount?: ProductDiscountRule;
  /** Lifetime of tokens issued by `GET /auth/token`, in seconds. Default 3600. */
  issuedTokenLifetimeSeconds?: number;
  /** Called with one line per request handled (method, path, status); secrets never appear in it. */
  log?: (line: string) => void;
  /**
   * Host names (as in the `Host` header, without the port) whose requests the `/_sandbox` controls answer besides
   * loopback (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`), e.g. a Docker service name. Default none.
   */
  controlHosts?: string[];
  /**
   * When set, every `/_sandbox` request but the browser's GETs (payment page, QR image, slip barcode) must carry it
   * in `X-Sandbox-Control-Token`. Default none.
   */
  controlToken?: string;
}

/** A running sandbox. */
export interface SandboxServer {
  /** The service's `{base_url}`, e.g. `http://127.0.0.1:54321`. */
  url: string;
  port: number;
  /** In-process equivalents of the `/_sandbox` HTTP controls. */
  controls: SandboxControls;
  /** The webhook delivery log, oldest first (a copy). */
  deliveries(): DeliveryLogEntry[];
  /** Stops the server, pending webhook retries and timers; closes the SQLite file. */
  close(): Promise<void>;
}

/** How the `pay` control settles an invoice. */
export type PaymentMethod = 'pix' | 'billet' | 'card';

export interface PayOptions {
  /** Default: the invoice's own method (PIX for type 1, bank slip for 2, card for 3). */
  method?: PaymentMethod;
  /** Default true. A declined card goes 2 → 12; a failed PIX or bank slip goes to 16. */
  approved?: boolean;
  /** What the customer actually paid, in cents (`payment.total`); default the invoice's total. */
  amountCents?: number;
}

export interface ContestOptions {
  /** Default: `chargeback` for card invoices, `mediation` otherwise. */
  kind?: 'chargeback' | 'mediation';
  reason?: string;
}

export interface CardTokenInput {
  number: string;
  holder: string;
  /** `MM/YY`. */
  expiry: string;
}

export interface CardTokenResult {
  token: string;
  brand: string;
  bin: string;
  last4: string;
  expiry: string;
}

export interface WebhookRegistrationInput {
  url: string;
  /** The merchant part of the webhook token; empty when omitted (§6.5). */
  merchant_token?: string;
}

export interface WebhookRegistration {
  id: string;
  /** Null for the default webhook, which serves `payment.webhook` URLs. */
  url: string | null;
  merchantToken: string;
  /** The service token: the part a receiver validates with `OPTIONS /webhooks`. */
  token: string;
}

/** In-process test controls; each has an HTTP twin under `/_sandbox` (see docs/sandbox.md). */
export interface SandboxControls {
  /** The customer pays (`POST /_sandbox/invoices/:id/pay`). `id` is the invoice number (or its `invoice_id`). */
  pay(id: string, options?: PayOptions): Promise<WireInvoiceCurrent>;
  /** The due date passes: 1 → 15, a due day not yet past becoming yesterday (`POST /_sandbox/invoices/:id/overdue`). */
  overdue(id: string): Promise<WireInvoiceCurrent>;
  /** The customer disputes the payment: 5 or 8 → 10, and a mediation or chargeback is listed. */
  contest(id: string, options?: ContestOptions): Promise<WireInvoiceCurrent>;
  /** The bank slip refund reaches the customer: 7 → 8 or 9. */
  completeRefund(id: string): Promise<WireInvoiceCurrent>;
  /** Sets any status code, known or not (11, 13...), with a webhook. */
  setStatus(id: string, code: number): Promise<WireInvoiceCurrent>;
  /** The stored invoice (internal record), or undefined. */
  getInvoice(id: string): SandboxInvoiceRecord | undefined;
  /** The invoice in the current shape (§2.1), or undefined. */
  renderInvoice(id: string): WireInvoiceCurrent | undefined;
  /** Forgets invoices, consumers, disputes, deliveries, faults, registered webhooks and issued tokens. */
  reset(): Promise<void>;
  deliveries(): DeliveryLogEntry[];
  /** Resolves once no delivery is pending (held deliveries excepted). */
  waitForDeliveries(timeoutMs?: number): Promise<void>;
  createCardToken(input: CardTokenInput): CardTokenResult;
  registerWebhook(input: WebhookRegistrationInput): WebhookRegistration;
  /** Every registered webhook, the default one first. */
  webhooks(): WebhookRegistration[];
  /** Issues a bearer token with these scopes; it expires after `expiresInSeconds` when given. */
  issueToken(scopes: string[], expiresInSeconds?: number): string;
  addFault(rule: FaultRule): ActiveFault;
  /** Removes every HTTP fault and webhook fault. */
  clearFaults(): void;
  faults(): ActiveFault[];
  setWebhookFaults(faults: WebhookFaults): void;
  /** Sends held deliveries (`hold` fault) in the order given; answers how many were released. */
  releaseWebhooks(order?: 'fifo' | 'reverse'): number;
  /** Moves invoices in 1 whose due day has passed (by `clock`) to 15; answers how many moved. */
  checkDueDates(): Promise<number>;
}

/** What a product's `discount` takes off: the whole line, or each unit (A1, `SandboxOptions.productDiscount`). */
export type ProductDiscountRule = 'line' | 'unit';

/** A product line as stored: its `discount` as sent, read by the sandbox's `productDiscount`. */
export interface SandboxProduct {
  id: string;
  title: string;
  image: string;
  qnt: number;
  amountCents: number;
  discountCents: number;
}

/** An address as stored: the wire's `client.address`. */
export type SandboxAddress = WireAddress;

export interface SandboxRefund {
  amountCents: number;
  /** ISO instant. */
  at: string;
  /** False while a bank slip refund waits for `completeRefund` (status 7). */
  completed: boolean;
}

/** An invoice as the sandbox stores it: cents and ISO instants, rendered into the wire shapes on the way out. */
export interface SandboxInvoiceRecord {
  seq: number;
  id: string;
  uuid: string;
  invoiceId: string;
  token: string;
  referrer: string;
  paymentId: string | null;
  type: number;
  productType: number | null;
  installments: number;
  createdAt: string;
  updatedAt: string;
  dueDay: string;
  originalDueDay: string;
  products: SandboxProduct[];
  client: {
    name: string | null;
    document: string | null;
    email: string | null;
    phone: string | null;
    ip: string | null;
    address: Partial<SandboxAddress> | null;
  };
  customerId: string;
  ecommerce: { storeId: number; checkout: number } | null;
  orderUrl: string | null;
  storeUrl: string | null;
  webhookUrl: string | null;
  grossCents: number;
  /** Product discounts plus the invoice discount. */
  discountCents: number;
  shippingCents: number;
  feesCents: number;
  statusCode: number;
  pix: { payload: string; status: string; endToEndId: string | null; refundId: string | null } | null;
  billet: { line: string; barcode: string; ourNumber: string } | null;
  card: {
    token: string;
    brand: string;
    bin: string;
    last4: string;
    expire: string;
    holderName: string;
    approved: boolean;
  } | null;
  payment: { method: PaymentMethod | null; paidCents: number | null; paidAt: string | null };
  refunds: SandboxRefund[];
  tracking: { code: string; carrier: string | null; url: string | null; createdAt: string } | null;
}
