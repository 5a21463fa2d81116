import { DynamicModule, Inject, Logger, Module, OnModuleInit, Optional, Provider } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WEBHOOKS_OPTIONS } from './constants';
import { createWebhookRoute, installBeforeBodyParsers } from './webhook-body';
import { WebhookInboxProcessor } from './webhook-inbox.processor';
import { DeliveryIntake } from './delivery-intake';
import { WebhookInboxService } from './webhook-inbox.service';
import { WebhookTokenService } from './webhook-token.service';
import { HostDeliveries } from './host-deliveries';
import { HOST_WEBHOOKS } from '../core/ports';
import { createWebhooksController } from './webhooks.controller';
import {
  type ResolvedWebhooksOptions,
  type WebhooksOptions,
  resolveWebhooksOptions,
} from '../options/webhooks.options';

/** Wiring choices of {@link WebhooksModule.forRoot} beyond its options. */
export interface WebhooksModuleExtras {
  /** A provider of `WEBHOOK_MERCHANT_TOKEN_SOURCE` (the merchant token read at runtime). Default: none. */
  merchantTokenSource?: Provider;
  /** A provider of `WEBHOOKS_OPTIONS` (resolved). Default: `options` resolved; the route is always `options.path`. */
  optionsProvider?: Provider;
}

/**
 * Webhook reception: the route at `options.path`, the token check, the inbox and its processor. Status changes go
 * through the global `InvoiceStatusModule`, which the app must import too (the root module does).
 */
@Module({})
export class WebhooksModule implements OnModuleInit {
  private readonly logger = new Logger(WebhooksModule.name);

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly intake: DeliveryIntake,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  static forRoot(options: WebhooksOptions = {}, extras: WebhooksModuleExtras = {}): DynamicModule {
    const resolved = resolveWebhooksOptions(options);
    return {
      module: WebhooksModule,
      // Global so the checkout's provider reaches HOST_WEBHOOKS (every token is this package's own).
      global: true,
      controllers: [createWebhooksController(resolved.path)],
      providers: [
        extras.optionsProvider ?? { provide: WEBHOOKS_OPTIONS, useValue: resolved },
        ...(extras.merchantTokenSource ? [extras.merchantTokenSource] : []),
        WebhookTokenService,
        WebhookInboxService,
        WebhookInboxProcessor,
        DeliveryIntake,
        HostDeliveries,
        { provide: HOST_WEBHOOKS, useExisting: HostDeliveries },
      ],
      exports: [
        WEBHOOKS_OPTIONS,
        HOST_WEBHOOKS,
        HostDeliveries,
        WebhookTokenService,
        WebhookInboxService,
        WebhookInboxProcessor,
        DeliveryIntake,
      ],
    };
  }

  /**
   * On Express the webhook route is a middleware ahead of the host's JSON parser (its own body limit, answered
   * there); elsewhere, the Nest route takes deliveries, within the host's body parser limit.
   */
  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return; // an application context without HTTP: no route
    const route = createWebhookRoute(this.options.path, (req) => this.intake.receive(req));
    if (adapter.getType() !== 'express' || !installBeforeBodyParsers(adapter.getInstance(), route)) {
      this.logger.warn(
        `the webhook route is the Nest route here: the host's body parser limit applies to /${this.options.path}`,
      );
    }
  }
}
