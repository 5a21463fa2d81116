import type { StatusDispatchOptions } from '../core/status-dispatcher.service';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency, Type } from '@nestjs/common';
import type { CheckoutOptions } from './checkout.options';
import type { OrderPaymentPort } from '../core/ports';
import type { GatewayClientOptions } from '../gateway/gateway.options';
import type { HealthOptions } from './health.options';
import type { OpenReconciliationOptions } from './reconciliation.options';
import type { RefundsOptions } from './refunds.options';
import type { InvoicePaymentsAdminOptions } from './admin.options';
import type { ShippingOptions } from './shipping.options';
import type { WebhooksOptions } from './webhooks.options';

/**
 * Options of `InvoicePaymentsModule`, one section per capability; only `gateway` is required. Settings saved through
 * the admin API override `gateway` and most of `checkout` at runtime (docs/configuration.md).
 */
export interface InvoicePaymentsModuleOptions {
  /** The service's address, credential and wire conventions; the admin settings override the connection at runtime. */
  gateway: GatewayClientOptions;
  /** Order → invoice mapping and creation: methods, due days, installments, URLs, ids, address mapping. */
  checkout?: CheckoutOptions;
  /** Webhook reception (route, token check, inbox). */
  webhooks?: WebhooksOptions;
  /** Lookups of open invoices on a schedule, so a payment whose webhook never arrived still reaches the order. */
  reconciliation?: OpenReconciliationOptions;
  /** Tracking codes posted after shipment. */
  shipping?: ShippingOptions;
  /** The admin API (prefix, guard or admin key, secret encryption). */
  admin?: InvoicePaymentsAdminOptions;
  /** How refunds whose answer was lost are settled (read-back schedule, alert, derived keys); see docs/refunds.md. */
  refunds?: RefundsOptions;
  /** How applied status changes are delivered to the host's port (polling, retry backoff). */
  notifications?: StatusDispatchOptions;
  /** Thresholds of `InvoicePaymentsHealthIndicator` (see docs/observability.md). */
  health?: HealthOptions;
  /** Start the background workers (default `true` unless `INVOICE_PAYMENTS_WORKERS` is `0`, `false` or `off`). */
  workers?: boolean;
}

/** How the module is registered, beside its options. */
export interface InvoicePaymentsModuleWiring {
  /** Make the module's exports (provider, client, services) injectable everywhere, like `ConfigModule`. */
  isGlobal?: boolean;
  /** The host's {@link OrderPaymentPort} class, built with `ModuleRef.create` (docs/configuration.md). */
  orderPort?: Type<OrderPaymentPort>;
  /** Modules whose exports the order port (and `useFactory`) need. */
  imports?: ModuleMetadata['imports'];
}

/** `InvoicePaymentsModule.forRoot(options)`. */
export type InvoicePaymentsModuleRootOptions = InvoicePaymentsModuleOptions & InvoicePaymentsModuleWiring;

/** `forRootAsync(...)`: the options from a factory; routes (`webhooks.path`, `admin.prefix`) beside it. */
export interface InvoicePaymentsModuleAsyncOptions
  extends InvoicePaymentsModuleWiring, Pick<InvoicePaymentsModuleOptions, 'webhooks' | 'shipping' | 'admin'> {
  useFactory(...args: unknown[]): InvoicePaymentsModuleOptions | Promise<InvoicePaymentsModuleOptions>;
  /** Providers handed to `useFactory`, in order. */
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
}
