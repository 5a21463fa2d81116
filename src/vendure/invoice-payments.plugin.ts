import type { IncomingMessage, ServerResponse } from 'node:http';
import { DynamicModule, forwardRef } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { concatAST } from 'graphql';
import getRawBody from 'raw-body';
import { PluginCommonModule, RuntimeVendureConfig, VendurePlugin } from '@vendure/core';
import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { InvoicePaymentsModule } from '../invoice-payments.module';
import { checkOptions } from '../options/resolve';
import { resolveWebhooksOptions, type ResolvedWebhooksOptions } from '../options/webhooks.options';
import { tooLarge, type Refusal } from '../webhooks/delivery-checks';
import { answerOf } from '../webhooks/webhooks.controller';
import { INVOICE_PAYMENTS_ENTITIES } from '../entities';
import { adminApiSchema, InvoicePaymentAdminResolver } from './admin-api.resolver';
import { OrderEventsSubscriber } from './order-events.subscriber';
import { VendureOrderPaymentPort } from './order-payment.port';
import { en, invoicePaymentMethodHandler } from './payment-method.handler';
import {
  DEFAULT_DOCUMENT_FIELD,
  VENDURE_PLUGIN_OPTIONS,
  type InvoicePaymentsPluginOptions,
  type ResolvedPluginOptions,
} from './constants';
import { InvoicePaymentShopResolver, shopApiSchema } from './shop-api.resolver';
import { InvoicePaymentStatusResolver, shopStatusSchema } from './shop-status.resolver';

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
    checkOptions(options);
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

/*
 * Vendure's JSON parser stops at Express' 100 KB and its exception filter answers "too large" with a 500, which the
 * service would retry as a failure. Mounted before it (`beforeListen`), this reader takes the body up to
 * `webhooks.bodyLimitBytes` and answers a larger one 413; the bytes go on, parsed once within the intake's bounds.
 */

type ParsedRequest = IncomingMessage & { body?: unknown };
type Next = (err?: unknown) => void;

/** Express middleware for `apiOptions.middleware`: the webhook route's JSON body as bytes, at most the module's limit. */
function webhookBodyReader(options: ResolvedWebhooksOptions) {
  const limit = options.bodyLimitBytes;
  return function invoicePaymentsWebhookBody(req: ParsedRequest, res: ServerResponse, next: Next): void {
    if (req.method !== 'POST' || !isJson(req.headers['content-type'])) return next();
    // A declared length past the limit is answered at once, unread; a body in chunks, once it passes the limit.
    const declared = tooLarge(Number(req.headers['content-length']) || 0, options);
    if (declared) return refuse(req, res, declared);
    getRawBody(req, { limit }).then(
      (bytes) => {
        // The host's JSON parser (body-parser) passes over a request whose body is read.
        req.body = bytes;
        next();
      },
      (err: { type?: string }) =>
        refuse(req, res, err.type === 'entity.too.large' ? tooLarge(limit + 1, options)! : UNREADABLE),
    );
  };
}

const UNREADABLE: Refusal = { ok: false, status: 400, message: 'body: could not be read' };

/** Answered as the route answers a refusal; the unread rest is read off and dropped, so a sender still writing hears it. */
function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  req.resume();
  const { status, body } = answerOf(refusal);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}
