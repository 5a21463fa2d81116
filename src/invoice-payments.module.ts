import { DynamicModule, Global, Module, Provider, Type } from '@nestjs/common';
import { CLOCK, systemClock } from './domain/clock';
import { APP_FILTER, ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { CheckoutModule } from './checkout/checkout.module';
import { InvoicePaymentsAlert, InvoicePaymentsEvents, messageOf } from './core/events';
import { InvoiceStatusModule } from './core/invoice-status.module';
import { ORDER_PAYMENT_PORT, OrderPaymentPort } from './core/ports';
import { resolveNotificationsOptions, STATUS_DISPATCH_OPTIONS } from './core/status-dispatcher.service';
import { InvoicePaymentsErrorsFilter } from './errors/http-answers';
import { GatewayClient } from './gateway/gateway.client';
import {
  GATEWAY_CALL_OBSERVER,
  GATEWAY_CLIENT_OPTIONS,
  type GatewayClientOptions,
} from './gateway/gateway.options';
import type * as Options from './options/options';
import {
  checkOptions,
  INVOICE_PAYMENTS_OPTIONS,
  mergeAsyncOptions,
  section,
  StaticSections,
} from './options/resolve';
import { InvoicePaymentsHealthIndicator } from './observability/health.indicator';
import { serviceCallObserver } from './core/otel';
import { HEALTH_OPTIONS, resolveHealthOptions } from './options/health.options';
import { SignalsService } from './observability/signals.service';
import { INVOICE_PAYMENTS_ENTITIES } from './entities';
import { InvoiceRecord } from './persistence/invoice.entity';
import { OpenInvoicesReconciler } from './reconciliation/open-invoices.reconciler';
import { RECONCILIATION_OPTIONS, resolveReconciliationOptions } from './options/reconciliation.options';
import { REFUNDS_OPTIONS, resolveRefundsOptions } from './options/refunds.options';
import { RefundSettlementService } from './refunds/refund-settlement.service';
import { RefundService } from './refunds/refund.service';
import { RefundStore } from './refunds/refund.store';
import { SettingsModule, SettingsStoreModule } from './settings/settings.module';
import { resolveShippingOptions, SHIPPING_OPTIONS } from './options/shipping.options';
import { TrackingOutbox } from './shipping/tracking-outbox.entity';
import { TrackingService } from './shipping/tracking.service';
import { TrackingWorker } from './shipping/tracking.worker';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The payment module, on the host's TypeORM connection (with {@link INVOICE_PAYMENTS_ENTITIES} and the migrations)
 * and `EventEmitterModule`; register it once per application (docs/configuration.md has a full example).
 */
@Module({})
export class InvoicePaymentsModule {
  static forRoot(options: Options.InvoicePaymentsModuleRootOptions): DynamicModule {
    const checked = checkOptions(options);
    return assemble({ provide: INVOICE_PAYMENTS_OPTIONS, useValue: checked }, options, options);
  }

  static forRootAsync(options: Options.InvoicePaymentsModuleAsyncOptions): DynamicModule {
    const { webhooks, shipping, admin } = options;
    const statics: StaticSections = { webhooks, shipping, admin };
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
  static register(options: Provider, wiring: Options.InvoicePaymentsModuleWiring): DynamicModule {
    const port: Provider[] = wiring.orderPort ? [orderPortProvider(wiring.orderPort)] : [];
    return {
      module: InvoicePaymentsCoreModule,
      imports: [
        ...(wiring.imports ?? []),
        TypeOrmModule.forFeature(INVOICE_PAYMENTS_ENTITIES),
        InvoiceStatusModule,
        SettingsStoreModule,
      ],
      providers: [
        options,
        // The one clock module code reads; a test overrides this provider to move time instead of sleeping.
        { provide: CLOCK, useValue: systemClock },
        {
          provide: GATEWAY_CLIENT_OPTIONS,
          useFactory: (o: Options.InvoicePaymentsModuleOptions, e: EventEmitter2) => ({
            ...o.gateway,
            onImplausibleAmount: implausibleAmountAlert(e, o.gateway.onImplausibleAmount),
          }),
          inject: [INVOICE_PAYMENTS_OPTIONS, EventEmitter2],
        },
        // The gateway reports each call to an observer; observability's spans and call durations are that observer.
        { provide: GATEWAY_CALL_OBSERVER, useFactory: serviceCallObserver, inject: [CLOCK] },
        GatewayClient,
        section(STATUS_DISPATCH_OPTIONS, 'notifications', resolveNotificationsOptions),
        // App-wide, so the module's errors out of a host's controllers keep their answers; a host's own filter wins.
        { provide: APP_FILTER, useClass: InvoicePaymentsErrorsFilter },
        // Refunds (the checkout's provider and the admin API reach the one `RefundService`) and observability.
        section(REFUNDS_OPTIONS, 'refunds', resolveRefundsOptions),
        RefundStore,
        RefundSettlementService,
        RefundService,
        section(HEALTH_OPTIONS, 'health', resolveHealthOptions),
        InvoicePaymentsHealthIndicator,
        SignalsService,
        ...port,
      ],
      exports: [
        CLOCK,
        RefundService,
        RefundSettlementService,
        InvoicePaymentsHealthIndicator,
        INVOICE_PAYMENTS_OPTIONS,
        GATEWAY_CLIENT_OPTIONS,
        GatewayClient,
        STATUS_DISPATCH_OPTIONS,
        SettingsStoreModule,
        ...(wiring.orderPort ? [ORDER_PAYMENT_PORT] : []),
      ],
    };
  }
}

/** Shipping and the reconciliation, on the root's sections: a host reaches them through the module (or `isGlobal`). */
@Module({
  imports: [TypeOrmModule.forFeature([TrackingOutbox, InvoiceRecord])],
  providers: [
    section(SHIPPING_OPTIONS, 'shipping', resolveShippingOptions),
    TrackingService,
    TrackingWorker,
    section(RECONCILIATION_OPTIONS, 'reconciliation', resolveReconciliationOptions),
    OpenInvoicesReconciler,
  ],
  exports: [TrackingService, TrackingWorker, OpenInvoicesReconciler],
})
class ScheduledWorkModule {}

function assemble(
  options: Provider,
  wiring: Options.InvoicePaymentsModuleWiring,
  statics: StaticSections,
): DynamicModule {
  const webhooks = WebhooksModule.forRoot(statics.webhooks);
  const capabilities = [
    CheckoutModule,
    webhooks,
    ScheduledWorkModule,
    // The same modules: one instance of each, its workers the ones the Operations tab wakes.
    SettingsModule.forRoot(statics.admin, [webhooks, ScheduledWorkModule]),
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
        throw new Error(
          `InvoicePaymentsModule: cannot build the order port ${orderPort.name}: ${messageOf(err)}\n` +
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

// Once per distinct problem among the last ones, so a webhook retried every minute does not flood the alerts.
function implausibleAmountAlert(
  events: EventEmitter2,
  hostListener: GatewayClientOptions['onImplausibleAmount'],
): NonNullable<GatewayClientOptions['onImplausibleAmount']> {
  const recent = new LRUCache<string, true>({ max: 100 });
  return (error) => {
    hostListener?.(error);
    if (recent.has(error.message)) return;
    recent.set(error.message, true);
    const alert: InvoicePaymentsAlert = {
      kind: 'implausible_amount',
      orderId: null,
      invoiceRecordId: null,
      message: `the service answered an amount that cannot be real; the answer was refused: ${error.message}`,
    };
    events.emit(InvoicePaymentsEvents.Alert, alert);
  };
}
