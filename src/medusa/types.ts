import type { PaymentWebhookAction } from '../core/checkout.types';
import type { PaymentSessionStatus } from '../domain/status-table';
import type { PaymentMethod } from '../gateway/types';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import type { ShippingOptions } from '../options/shipping.options';
import type { WebhooksOptions } from '../options/webhooks.options';

// Medusa's types (`@medusajs/types` 2.x), mirrored so the package type-checks without Medusa: only the fields read.

/** Medusa's `BigNumberInput`: major units as a number, a decimal string, a raw `{ value }`, or a big number. */
export type MedusaBigNumberInput =
  | number
  | string
  | { value: string | number; [key: string]: unknown }
  | { numeric: number; raw?: { value: string | number }; bigNumber?: { toFixed(): string } }
  | { toFixed(): string };

/** Medusa's `PaymentAddressDTO`. */
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

/** Medusa's `PaymentProviderContext`, its customer as the customer module has it. */
export interface MedusaPaymentContext {
  account_holder?: { data: Record<string, unknown> };
  customer?: {
    id: string;
    email: string;
    company_name?: string | null;
    first_name?: string | null;
    last_name?: string | null;
    phone?: string | null;
    billing_address?: MedusaAddress | null;
    metadata?: Record<string, unknown> | null;
  };
  idempotency_key?: string;
}

/** Medusa's `PaymentProviderInput` and its initiate/update/refund variants (`amount`, `currency_code`). */
export interface MedusaProviderInput {
  data?: Record<string, unknown>;
  context?: MedusaPaymentContext;
  amount?: MedusaBigNumberInput;
  currency_code?: string;
}

/** Medusa's `PaymentProviderOutput` and its initiate/status variants. */
export interface MedusaProviderOutput {
  id?: string;
  data?: Record<string, unknown>;
  /** Medusa's `PaymentSessionStatus`. */
  status?: PaymentSessionStatus | 'pending_authorization';
}

/** Medusa's `WebhookActionResult`: `session_id` is Medusa's payment session id, `amount` in major units. */
export interface MedusaWebhookActionResult {
  action: PaymentWebhookAction;
  data?: { session_id: string; amount: number };
}

/** What the storefront may choose in the session's `data`; amounts and the order are never read from it. */
export interface MedusaSessionChoice {
  /** Default: the first of `checkout.methods`. */
  method?: PaymentMethod;
  /** The CPF or CNPJ when Medusa's customer has none in `metadata` (see `customerDocumentKeys`). */
  document?: string;
  card?: { token: string; expiry: string; holder_name: string };
  installments?: number;
  /**
   * The payer's name when Medusa's customer has none (a guest) and the storefront asks for it; else the cart's billing
   * address names the payer. At most `checkout.textLimits.name` characters each.
   */
  first_name?: string;
  last_name?: string;
}

/**
 * The cart of the payment collection as the plugin reads it through Medusa's `query` and hands it to the provider in
 * the session's `data.cart` (Medusa gives the provider a signed-in customer, not the cart): a guest's e-mail, name and
 * phone.
 * The plugin overwrites whatever the storefront sent under this key; it is not kept in the session's data.
 */
export interface MedusaCheckoutCart {
  id: string;
  email: string | null;
  /** Its names and phone only. */
  billing_address: MedusaAddress | null;
  /** Its names and phone only: the payer's when the storefront set no billing address. */
  shipping_address?: MedusaAddress | null;
}

/**
 * The provider's (and the plugin's) options in `medusa-config.ts`: the module's sections that apply inside Medusa,
 * plus the connection's; see docs/medusa.md. A type alias, so it is assignable to Medusa's `Record<string, unknown>`.
 */
export type InvoicePaymentsMedusaOptions = Pick<
  InvoicePaymentsModuleOptions,
  'gateway' | 'checkout' | 'admin' | 'notifications' | 'reconciliation'
> & {
  webhooks?: Omit<WebhooksOptions, 'path'>;
  shipping?: Omit<ShippingOptions, 'shipmentEvent' | 'mapShipmentEvent'>;
  /** PostgreSQL URL of the module's connection. Default: `process.env.DATABASE_URL`. */
  databaseUrl?: string;
  /** PostgreSQL schema of the module's tables, created when missing. Default `invoice_payments`. */
  databaseSchema?: string;
  /** Connections in the module's pool. Default 5. */
  poolSize?: number;
  /** Run the module's migrations when the provider starts. Default `true`. */
  runMigrations?: boolean;
  /** Keys of Medusa's `customer.metadata` that may hold the CPF/CNPJ. Default `cpf`, `cnpj`, `document`, `tax_id`. */
  customerDocumentKeys?: string[];
  /** Nest log levels of the module. Default `['error', 'warn']`. */
  logLevels?: Array<'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal'>;
};
