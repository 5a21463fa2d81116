import type { ProviderWebhookPayload } from '../checkout/types';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import type { PaymentMethod } from '../gateway/types';
import type { ShippingOptions } from '../options/shipping.options';
import type { WebhooksOptions } from '../options/webhooks.options';

/*
 * Medusa's types, mirrored: the package compiles and type-checks without Medusa installed (its packages are optional
 * peers). They follow `@medusajs/types` 2.x (`payment/provider.d.ts`, `totals/big-number.d.ts`); only the fields the
 * provider reads are spelled out.
 */

/** Medusa's `BigNumberInput`: major units as a number, a decimal string, a raw `{ value }`, or a big number. */
export type MedusaBigNumberInput =
  | number
  | string
  | { value: string | number; [key: string]: unknown }
  | { numeric: number; raw?: { value: string | number }; bigNumber?: { toFixed(): string } }
  | { toFixed(): string };

/** Medusa's `PaymentSessionStatus`, `pending_authorization` included (2.10+). */
export type MedusaPaymentSessionStatus =
  'authorized' | 'captured' | 'pending' | 'requires_more' | 'error' | 'canceled' | 'pending_authorization';

/** Medusa's `PaymentActions` (what a webhook means for a session). */
export type MedusaPaymentAction =
  | 'authorized'
  | 'captured'
  | 'failed'
  | 'pending'
  | 'requires_more'
  | 'canceled'
  | 'not_supported'
  | 'pending_authorization';

/** Medusa's `PaymentAddressDTO` (a partial `AddressDTO`). */
export interface MedusaAddress {
  first_name?: string | null;
  last_name?: string | null;
  address_1?: string | null;
  address_2?: string | null;
  city?: string | null;
  province?: string | null;
  postal_code?: string | null;
  country_code?: string | null;
  phone?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** Medusa's `PaymentCustomerDTO`, as `createPaymentSessionsWorkflow` fills it from the customer module. */
export interface MedusaPaymentCustomer {
  id: string;
  email: string;
  company_name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  billing_address?: MedusaAddress | null;
  metadata?: Record<string, unknown> | null;
}

/** Medusa's `PaymentProviderContext`. */
export interface MedusaPaymentContext {
  account_holder?: { data: Record<string, unknown> };
  customer?: MedusaPaymentCustomer;
  idempotency_key?: string;
}

/** Medusa's `PaymentProviderInput`: `data` is the session's (or payment's) data. */
export interface MedusaProviderInput {
  data?: Record<string, unknown>;
  context?: MedusaPaymentContext;
}

export interface MedusaAmountInput extends MedusaProviderInput {
  amount: MedusaBigNumberInput;
}

export interface MedusaInitiateInput extends MedusaAmountInput {
  currency_code: string;
}

export interface MedusaProviderOutput {
  data?: Record<string, unknown>;
}

export interface MedusaStatusOutput extends MedusaProviderOutput {
  status: MedusaPaymentSessionStatus;
}

export interface MedusaInitiateOutput extends MedusaProviderOutput {
  id: string;
  status?: MedusaPaymentSessionStatus;
}

/** Medusa's `ProviderWebhookPayload['payload']`: what its `/hooks/payment/:provider` route received. */
export type MedusaWebhookPayload = ProviderWebhookPayload;

/** Medusa's `WebhookActionResult`: `session_id` is Medusa's payment session id, `amount` in major units. */
export interface MedusaWebhookActionResult {
  action: MedusaPaymentAction;
  data?: { session_id: string; amount: number };
}

/**
 * What the storefront may choose when it creates a payment session (`data` of Medusa's
 * `initiatePaymentSession`). Amounts and the order are never read from it: the amount is Medusa's payment
 * collection amount and the customer is Medusa's (`context.customer`).
 */
export interface MedusaSessionChoice {
  /** Default: the first of `checkout.methods`. */
  method?: PaymentMethod;
  /** The customer's CPF or CNPJ when Medusa's customer has none in `metadata` (see `customerDocumentKeys`). */
  document?: string;
  /** Card only: the token from the service's tokenization script, the expiry (`MM/YY`) and the holder. */
  card?: { token: string; expiry: string; holder_name: string };
  installments?: number;
}

/**
 * Options of the provider, as given in `medusa-config.ts` (`modules[].options.providers[].options`): the module's
 * sections (`InvoicePaymentsModuleOptions`) that apply inside Medusa, plus the connection's. The module runs as a
 * Nest application context inside Medusa, on its own TypeORM connection. A type alias, not an interface, so it is
 * assignable to Medusa's `Record<string, unknown>` options.
 *
 * In `checkout`, set `publicWebhookUrl` to Medusa's webhook route for this provider:
 * `https://<medusa>/hooks/payment/invoice-payments_<id>` (`<id>` is the provider's `id` in `medusa-config.ts`).
 * `webhooks.path` is Medusa's route, and the shipment comes from Medusa's subscriber, so those fields are not here.
 */
export type InvoicePaymentsMedusaOptions = Pick<
  InvoicePaymentsModuleOptions,
  'gateway' | 'checkout' | 'admin' | 'notifications' | 'reconciliation'
> & {
  webhooks?: Omit<WebhooksOptions, 'path'>;
  shipping?: Omit<ShippingOptions, 'shipmentEvent' | 'mapShipmentEvent'>;
  /** PostgreSQL URL of the module's connection. Default: `process.env.DATABASE_URL` (Medusa's database). */
  databaseUrl?: string;
  /**
   * PostgreSQL schema of the module's tables, created when missing, so they stay apart from Medusa's. Default
   * `invoice_payments`. `public` puts them beside Medusa's (every table name starts with `invoice_payments_`).
   */
  databaseSchema?: string;
  /** Connections in the module's pool. Default 5. */
  poolSize?: number;
  /** Run the module's migrations when the provider starts. Default `true`; else run `runMigrations` yourself. */
  runMigrations?: boolean;
  /** Keys of Medusa's `customer.metadata` that may hold the CPF/CNPJ, first found wins. Default `cpf`, `cnpj`, `document`, `tax_id`. */
  customerDocumentKeys?: string[];
  /** Nest log levels of the module. Default `['error', 'warn']`. */
  logLevels?: Array<'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal'>;
};
