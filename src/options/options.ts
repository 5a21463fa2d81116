import type { StatusDispatchOptions } from './notifications.options';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency, Type } from '@nestjs/common';
import type { CheckoutOptions } from './checkout.options';
import type { OrderPaymentPort } from '../core/ports';
import type { GatewayClientOptions } from '../gateway/gateway.options';
import type { HealthOptions } from '../observability/health.options';
import type { OpenReconciliationOptions } from './reconciliation.options';
import type { RefundsOptions } from './refunds.options';
import type { InvoicePaymentsAdminOptions } from './admin.options';
import type { ShippingOptions } from './shipping.options';
import type { WebhooksOptions } from './webhooks.options';

/**
 * Options of `InvoicePaymentsModule`, one section per capability. Only `gateway` is required.
 * Settings saved through the admin API override `gateway` (base URL, token, mode) and most of `checkout` at runtime;
 * these options are their defaults.
 */
export interface InvoicePaymentsModuleOptions {
  /**
   * The service's address, credential and wire conventions (`GatewayClientOptions`). The module's client reads the
   * address, token and mode from the runtime settings before each call (these are their defaults), so the client's
   * own `resolveConfig` is not an option here.
   */
  gateway: Omit<GatewayClientOptions, 'resolveConfig'>;
  /** Order → invoice mapping and creation: methods, due days, installments, URLs, ids, address mapping. */
  checkout?: CheckoutOptions;
  /** Webhook reception (route, token check, inbox). */
  webhooks?: WebhooksOptions;
  /**
   * The reconciliation of open invoices (on by default): lookups by id on a schedule that backs off with age, so a
   * payment whose webhook never arrived still reaches the order. `{ intervalMs: 0 }` turns it off.
   */
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
  /**
   * Start the background workers: the webhook inbox processor's polling, the status-change dispatcher's polling,
   * the tracking worker, the refund settlement worker and the reconciliation of open invoices. Default: `true`,
   * unless the environment variable `INVOICE_PAYMENTS_WORKERS` is `0`, `false` or `off`. Set `false` (or that variable) in a CLI, migration or
   * one-off process: it then runs no query on its own. Work this process starts itself still completes (a webhook
   * it receives is applied, a change it applies is delivered); tracking codes it records are posted by a process
   * with workers.
   */
  workers?: boolean;
}

/** How the module is registered, beside its options. */
export interface InvoicePaymentsModuleWiring {
  /** Make the module's exports (provider, client, services) injectable everywhere, like `ConfigModule`. */
  isGlobal?: boolean;
  /**
   * The host's {@link OrderPaymentPort} class, provided as `ORDER_PAYMENT_PORT`. The module builds it, so its
   * dependencies must come from global modules or from `imports` (e.g. `imports: [TypeOrmModule.forFeature([Order])]`
   * for a port that injects the order repository); when they cannot be found the start fails with an error saying
   * so. The module builds it with `ModuleRef.create`, so Nest lifecycle hooks (`onModuleInit`...) are not called on
   * it. Omit it to provide `ORDER_PAYMENT_PORT` in a global module yourself, or to listen to the events only.
   */
  orderPort?: Type<OrderPaymentPort>;
  /** Modules whose exports the order port (and `useFactory`) need. */
  imports?: ModuleMetadata['imports'];
}

/** `InvoicePaymentsModule.forRoot(options)`. */
export type InvoicePaymentsModuleRootOptions = InvoicePaymentsModuleOptions & InvoicePaymentsModuleWiring;

/**
 * `InvoicePaymentsModule.forRootAsync(...)`: the options from a factory (`ConfigService`, secrets...). The factory
 * may return every section, `admin` (admin key, encryption keys), `webhooks` and `shipping` included. The two routes
 * are fixed when the module is defined, before the factory runs: give `webhooks.path` and `admin.prefix` here,
 * beside `useFactory` (a factory asking for another route fails the start, naming it). A section given both here
 * and by the factory is merged field by field, the factory winning.
 */
export interface InvoicePaymentsModuleAsyncOptions
  extends InvoicePaymentsModuleWiring, Pick<InvoicePaymentsModuleOptions, 'webhooks' | 'shipping' | 'admin'> {
  useFactory(...args: unknown[]): InvoicePaymentsModuleOptions | Promise<InvoicePaymentsModuleOptions>;
  /** Providers handed to `useFactory`, in order. */
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
}
