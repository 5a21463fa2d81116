import { settingsDefaultsOf } from './core/settings.schema';
import { DynamicModule, FactoryProvider, Global, Module, Provider, Type } from '@nestjs/common';
import { APP_FILTER, ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from './core/events';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CheckoutModule } from './checkout/checkout.module';
import { CHECKOUT_SETTINGS, CheckoutSettingsSource } from './checkout/checkout-config.service';
import { InvoiceStatusModule } from './core/invoice-status.module';
import { ORDER_PAYMENT_PORT, OrderPaymentPort } from './core/ports';
import { STATUS_DISPATCH_OPTIONS } from './core/status-dispatcher.service';
import { GATEWAY_CLIENT_OPTIONS } from './gateway/constants';
import { GatewayClient } from './gateway/gateway.client';
import { InvoicePaymentsErrorsFilter } from './errors/invoice-payments-errors.filter';
import type { GatewayClientOptions } from './gateway/gateway.options';
import { INVOICE_PAYMENTS_OPTIONS } from './invoice-payments.constants';
import {
  checkOptions,
  mergeAsyncOptions,
  notificationsOptionsOf,
  reconciliationOptionsOf,
  shippingOptionsOf,
  StaticSections,
  webhooksOptionsOf,
} from './options/resolve';
import type {
  InvoicePaymentsModuleAsyncOptions,
  InvoicePaymentsModuleOptions,
  InvoicePaymentsModuleRootOptions,
  InvoicePaymentsModuleWiring,
} from './options/options';
import { INVOICE_PAYMENTS_ENTITIES } from './persistence/entities';
import { ObservabilityModule } from './observability/observability.module';
import { RefundsModule } from './refunds/refunds.module';
import { INVOICE_PAYMENTS_ADMIN_OPTIONS, INVOICE_PAYMENTS_SETTINGS_DEFAULTS } from './settings/constants';
import { RECONCILIATION_OPTIONS } from './reconciliation/constants';
import { ReconciliationModule } from './reconciliation/reconciliation.module';
import { InvoicePaymentsSettingsService } from './settings/settings.service';
import { SettingsModule, SettingsStoreModule } from './settings/settings.module';
import { SHIPPING_OPTIONS } from './shipping/constants';
import { ShippingModule } from './shipping/shipping.module';
import { WEBHOOK_MERCHANT_TOKEN_SOURCE, type WebhookMerchantTokenSource } from './webhooks/delivery-intake';
import { WEBHOOKS_OPTIONS } from './webhooks/webhook-inbox.service';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The payment module, on the host's TypeORM connection (with {@link INVOICE_PAYMENTS_ENTITIES} and the migrations)
 * and `EventEmitterModule`; register it once per application (docs/configuration.md).
 *
 * @example
 * InvoicePaymentsModule.forRoot({
 *   gateway: { baseUrl: 'https://api.example.com', accessToken: process.env.PAYMENTS_TOKEN!, mode: 'production' },
 *   checkout: { publicWebhookUrl: 'https://shop.example/webhooks/invoice-payments' },
 *   orderPort: OrderPaymentAdapter,
 *   isGlobal: true,
 * })
 */
@Module({})
export class InvoicePaymentsModule {
  static forRoot(options: InvoicePaymentsModuleRootOptions): DynamicModule {
    const checked = checkOptions(options);
    return assemble({ provide: INVOICE_PAYMENTS_OPTIONS, useValue: checked }, options, options);
  }

  static forRootAsync(options: InvoicePaymentsModuleAsyncOptions): DynamicModule {
    const statics: StaticSections = {
      webhooks: options.webhooks,
      shipping: options.shipping,
      admin: options.admin,
    };
    const provider: Provider = {
      provide: INVOICE_PAYMENTS_OPTIONS,
      useFactory: async (...args: unknown[]) => mergeAsyncOptions(await options.useFactory(...args), statics),
      inject: options.inject ?? [],
    };
    return assemble(provider, options, statics);
  }
}

/** What every capability shares; global like `@nestjs/typeorm`'s core module (every token is this package's own). */
@Global()
@Module({})
class InvoicePaymentsCoreModule {
  static register(options: Provider, wiring: InvoicePaymentsModuleWiring): DynamicModule {
    const port: Provider[] = wiring.orderPort ? [orderPortProvider(wiring.orderPort)] : [];
    const settings = SettingsStoreModule.register(
      fromOptions(INVOICE_PAYMENTS_ADMIN_OPTIONS, (o) => o.admin ?? {}),
      fromOptions(INVOICE_PAYMENTS_SETTINGS_DEFAULTS, settingsDefaultsOf),
    );
    return {
      module: InvoicePaymentsCoreModule,
      imports: [
        ...(wiring.imports ?? []),
        TypeOrmModule.forFeature(INVOICE_PAYMENTS_ENTITIES),
        InvoiceStatusModule,
        settings,
      ],
      providers: [
        options,
        {
          provide: GATEWAY_CLIENT_OPTIONS,
          useFactory: gatewayOptions,
          inject: [INVOICE_PAYMENTS_OPTIONS, InvoicePaymentsSettingsService, EventEmitter2],
        },
        GatewayClient,
        fromOptions(STATUS_DISPATCH_OPTIONS, notificationsOptionsOf),
        {
          provide: CHECKOUT_SETTINGS,
          useFactory: (settings: InvoicePaymentsSettingsService): CheckoutSettingsSource => settings,
          inject: [InvoicePaymentsSettingsService],
        },
        // App-wide, so the module's errors out of a host's controllers keep their answers; a host's own filter wins.
        { provide: APP_FILTER, useClass: InvoicePaymentsErrorsFilter },
        ...port,
      ],
      exports: [
        INVOICE_PAYMENTS_OPTIONS,
        GATEWAY_CLIENT_OPTIONS,
        GatewayClient,
        STATUS_DISPATCH_OPTIONS,
        CHECKOUT_SETTINGS,
        settings,
        ...(wiring.orderPort ? [ORDER_PAYMENT_PORT] : []),
      ],
    };
  }
}

function fromOptions<T>(
  token: symbol,
  derive: (options: InvoicePaymentsModuleOptions) => T,
): FactoryProvider<T> {
  return { provide: token, useFactory: derive, inject: [INVOICE_PAYMENTS_OPTIONS] };
}

function assemble(
  options: Provider,
  wiring: InvoicePaymentsModuleWiring,
  statics: StaticSections,
): DynamicModule {
  const webhooks = WebhooksModule.forRoot(statics.webhooks, {
    merchantTokenSource: merchantTokenFromSettings,
    optionsProvider: fromOptions(WEBHOOKS_OPTIONS, webhooksOptionsOf),
  });
  const shipping = ShippingModule.forRoot(statics.shipping, {
    optionsProvider: fromOptions(SHIPPING_OPTIONS, shippingOptionsOf),
  });
  const capabilities = [
    CheckoutModule,
    RefundsModule,
    webhooks,
    ReconciliationModule.forRoot(undefined, fromOptions(RECONCILIATION_OPTIONS, reconciliationOptionsOf)),
    shipping,
    // The same module objects: one instance of each, its workers the ones the Operations tab wakes.
    SettingsModule.forRoot(statics.admin, [webhooks, shipping]),
    ObservabilityModule,
  ];
  return {
    module: InvoicePaymentsModule,
    global: wiring.isGlobal ?? false,
    imports: [InvoicePaymentsCoreModule.register(options, wiring), ...capabilities],
    exports: [InvoicePaymentsCoreModule, ...capabilities],
  };
}

// Nest's own message names this package's internal module: the error says what to do.
function orderPortProvider(orderPort: Type<OrderPaymentPort>): Provider {
  return {
    provide: ORDER_PAYMENT_PORT,
    useFactory: async (moduleRef: ModuleRef): Promise<OrderPaymentPort> => {
      try {
        return await moduleRef.create(orderPort);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new Error(
          `InvoicePaymentsModule: cannot build the order port ${orderPort.name}: ${reason}\n` +
            `Fix: list the modules that provide ${orderPort.name}'s dependencies in the module's own imports, ` +
            `e.g. InvoicePaymentsModule.forRoot({ orderPort: ${orderPort.name}, ` +
            `imports: [TypeOrmModule.forFeature([Order])], ... }) (or forRootAsync({ imports })), ` +
            `or make those modules global.`,
        );
      }
    },
    inject: [ModuleRef],
  };
}

// A token changed in the admin panel applies without a restart.
function gatewayOptions(
  options: InvoicePaymentsModuleOptions,
  settings: InvoicePaymentsSettingsService,
  events: EventEmitter2,
): GatewayClientOptions {
  const onImplausibleAmount = implausibleAmountAlert(events, options.gateway.onImplausibleAmount);
  return { ...options.gateway, onImplausibleAmount, resolveConfig: () => settings.gatewayConfig() };
}

// Once per distinct problem among the last ones, so a webhook retried every minute does not flood the alerts.
function implausibleAmountAlert(
  events: EventEmitter2,
  hostListener: GatewayClientOptions['onImplausibleAmount'],
): NonNullable<GatewayClientOptions['onImplausibleAmount']> {
  const recent: string[] = [];
  return (error) => {
    hostListener?.(error);
    if (recent.includes(error.message)) return;
    recent.push(error.message);
    if (recent.length > 100) recent.shift();
    const alert: InvoicePaymentsAlert = {
      kind: 'implausible_amount',
      orderId: null,
      invoiceRecordId: null,
      message: `the service answered an amount that cannot be real; the answer was refused: ${error.message}`,
    };
    events.emit(InvoicePaymentsEvents.Alert, alert);
  };
}

const merchantTokenFromSettings: Provider = {
  provide: WEBHOOK_MERCHANT_TOKEN_SOURCE,
  useFactory: (settings: InvoicePaymentsSettingsService): WebhookMerchantTokenSource => ({
    merchantToken: () => settings.merchantWebhookToken(),
  }),
  inject: [InvoicePaymentsSettingsService],
};
