import { DynamicModule, Module } from '@nestjs/common';
import { HOST_WEBHOOKS } from '../core/ports';
import { resolveWebhooksOptions, WEBHOOKS_OPTIONS, type WebhooksOptions } from '../options/webhooks.options';
import { section } from '../options/resolve';
import { DeliveryAdmission } from './delivery-checks';
import { DeliveryIntake } from './delivery-intake';
import { DeliveryConfirmation, LookupPacer } from './invoice-lookup';
import { WebhookInboxProcessor } from './webhook-inbox.processor';
import { createWebhooksController } from './webhooks.controller';

/**
 * Webhook reception at `options.path`, the merchant token read from the global `WEBHOOK_MERCHANT_TOKEN_SOURCE` (the
 * settings service); status changes go through the global `InvoiceStatusModule` (import it).
 */
@Module({})
export class WebhooksModule {
  static forRoot(options: WebhooksOptions | undefined): DynamicModule {
    const resolved = resolveWebhooksOptions(options);
    return {
      module: WebhooksModule,
      // Global so the checkout's provider reaches HOST_WEBHOOKS (every token is this package's own).
      global: true,
      controllers: [createWebhooksController(resolved.path)],
      providers: [
        section(WEBHOOKS_OPTIONS, 'webhooks', resolveWebhooksOptions),
        LookupPacer,
        DeliveryConfirmation,
        DeliveryAdmission,
        WebhookInboxProcessor,
        DeliveryIntake,
        { provide: HOST_WEBHOOKS, useExisting: DeliveryIntake },
      ],
      exports: [WEBHOOKS_OPTIONS, HOST_WEBHOOKS, WebhookInboxProcessor],
    };
  }
}
