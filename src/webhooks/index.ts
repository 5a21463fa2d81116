/** The webhook capability's public surface (re-exported by the package's `index.ts`). */
export { WebhooksModule } from './webhooks.module';
export type { WebhooksModuleExtras } from './webhooks.module';
export type { WebhookReceipt } from './webhooks.controller';
export { ReconciliationService } from './reconciliation.service';
export type { SweepResult } from './reconciliation.service';
export { WebhookInboxProcessor } from './webhook-inbox.processor';
export { WebhookInboxService } from './webhook-inbox.service';
export type { StoredDelivery } from './webhook-inbox.service';
export { WebhookTokenService, readWebhookHeaderLines, webhookLinesOf } from './webhook-token.service';
export type { WebhookAuthResult, WebhookHeaderLines } from './webhook-token.service';
export { WebhookInboxEntry } from './webhook-inbox.entity';
export type { WebhookInboxState } from './webhook-inbox.entity';
export { readDelivery, dedupeKeyOf } from './webhook-payload';
export { WebhookDeliveryVerifier } from './webhook-verifier.service';
export type { WebhookDelivery } from './webhook-payload';
export {
  DEFAULT_WEBHOOK_BODY_LIMIT,
  DEFAULT_WEBHOOK_PATH,
  WEBHOOK_MERCHANT_TOKEN_SOURCE,
  WEBHOOK_TOKEN_VALIDATOR,
  WEBHOOKS_OPTIONS,
  resolveWebhooksOptions,
} from './constants';
export type {
  ReconciliationOptions,
  ResolvedWebhooksOptions,
  WebhookInboxOptions,
  WebhooksOptions,
  WebhookMerchantTokenSource,
  WebhookTokenValidator,
} from './types';
