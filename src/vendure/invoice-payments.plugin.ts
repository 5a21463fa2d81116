import { DynamicModule, forwardRef } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { concatAST } from 'graphql';
import { PluginCommonModule, RuntimeVendureConfig, VendurePlugin } from '@vendure/core';
import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { InvoicePaymentsModule } from '../invoice-payments.module';
import { resolveWebhooksOptions } from '../options/webhooks.options';
import { INVOICE_PAYMENTS_ENTITIES } from '../entities';
import { adminApiSchema, InvoicePaymentAdminResolver } from './admin-api.resolver';
import { DEFAULT_DOCUMENT_FIELD } from './constants';
import { OrderEventsSubscriber } from './order-events.subscriber';
import { VendureOrderPaymentPort } from './order-payment.port';
import { en, invoicePaymentMethodHandler } from './payment-method.handler';
import {
  VENDURE_PLUGIN_OPTIONS,
  type InvoicePaymentsPluginOptions,
  type ResolvedPluginOptions,
} from './plugin-options';
import { InvoicePaymentShopResolver, shopApiSchema } from './shop-api.resolver';
import { InvoicePaymentStatusResolver, shopStatusSchema } from './shop-status.resolver';
import { webhookBodyReader } from './webhook-body';

/** PIX, bank slip and card payments for a Vendure 3 store: `InvoicePaymentsPlugin.init(options)`; see docs/vendure.md. */
@VendurePlugin({
  imports: [PluginCommonModule, forwardRef(() => InvoicePaymentsPlugin.moduleImport())],
  providers: [
    { provide: VENDURE_PLUGIN_OPTIONS, useFactory: () => InvoicePaymentsPlugin.options },
    OrderEventsSubscriber,
  ],
  exports: [VENDURE_PLUGIN_OPTIONS],
  entities: () => [...INVOICE_PAYMENTS_ENTITIES],
  shopApiExtensions: {
    schema: concatAST([shopApiSchema, shopStatusSchema]),
    resolvers: [InvoicePaymentShopResolver, InvoicePaymentStatusResolver],
  },
  adminApiExtensions: { schema: adminApiSchema, resolvers: [InvoicePaymentAdminResolver] },
  configuration: (config) => InvoicePaymentsPlugin.configure(config),
  // The order page's block in Vendure's React dashboard: its source ships beside this file, the store's build compiles it.
  dashboard: './dashboard/index.tsx',
  compatibility: '^3.0.0',
})
export class InvoicePaymentsPlugin {
  static options: ResolvedPluginOptions;
  private static imported: DynamicModule | undefined;

  /** The plugin with its options; put the result in `VendureConfig.plugins`. */
  static init(options: InvoicePaymentsPluginOptions): typeof InvoicePaymentsPlugin {
    if (!options?.gateway)
      throw new Error('InvoicePaymentsPlugin: gateway is required (baseUrl, accessToken, mode)');
    this.options = { ...options, documentField: options.documentField ?? DEFAULT_DOCUMENT_FIELD };
    this.imported = undefined;
    return InvoicePaymentsPlugin;
  }

  /** A forward reference (`init` runs after decoration); global, so the plugin's resolver reaches the provider. */
  static moduleImport(): DynamicModule {
    if (!this.options)
      throw new Error('InvoicePaymentsPlugin: call InvoicePaymentsPlugin.init(options) first');
    this.imported ??= {
      module: InvoicePaymentsHostModule,
      imports: [
        EventEmitterModule.forRoot(),
        InvoicePaymentsModule.forRoot({
          ...this.options,
          isGlobal: true,
          orderPort: VendureOrderPaymentPort,
          imports: [PluginCommonModule],
        }),
      ],
      exports: [InvoicePaymentsModule],
    };
    return this.imported;
  }

  static configure(config: RuntimeVendureConfig): RuntimeVendureConfig {
    config.paymentOptions.paymentMethodHandlers.push(invoicePaymentMethodHandler);
    config.paymentOptions.refundProcess = [...(config.paymentOptions.refundProcess ?? []), refundLeftPending];
    const db = config.dbConnectionOptions as { migrations?: unknown };
    const existing = Array.isArray(db.migrations) ? db.migrations : Object.values(db.migrations ?? {});
    db.migrations = [...existing, ...INVOICE_PAYMENTS_MIGRATIONS];
    // The webhook route reads its own body, up to the module's limit: Vendure's parser would answer a larger one 500.
    const webhooks = resolveWebhooksOptions(this.options?.webhooks);
    config.apiOptions.middleware.push({
      route: `/${webhooks.path}`,
      handler: webhookBodyReader(webhooks),
      beforeListen: true,
    });
    const field = this.options?.documentField ?? DEFAULT_DOCUMENT_FIELD;
    const customerFields = (config.customFields.Customer ??= []);
    if (!customerFields.some((f) => f.name === field)) {
      customerFields.push({
        name: field,
        type: 'string',
        nullable: true,
        public: false,
        label: en('CPF / CNPJ'),
      });
    }
    return config;
  }
}

/** Lets a Refund stay `Pending` (Vendure moves it to its handler's state): one the service makes later, or unknown. */
const refundLeftPending: NonNullable<RuntimeVendureConfig['paymentOptions']['refundProcess']>[number] = {
  transitions: { Pending: { to: ['Pending'], mergeStrategy: 'merge' } },
};

/** Holds the module's registration (a class of its own, so Nest sees one module however often it is imported). */
class InvoicePaymentsHostModule {}
