import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InvoiceRecordStore } from '../checkout/invoice-record.store';
import { parseJsonObject } from '../webhooks/webhook-body';
import { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';
import { WebhookInboxProcessor } from '../webhooks/webhook-inbox.processor';
import { WebhookInboxService } from '../webhooks/webhook-inbox.service';
import { deliveryTextProblem, readDelivery } from '../webhooks/webhook-payload';
import { WebhookTokenService } from '../webhooks/webhook-token.service';
import { webhookActionOfRecord } from './session';
import type { MedusaWebhookActionResult, MedusaWebhookPayload } from './types';

const logger = new Logger('InvoicePayments:Medusa');

/** Thrown when a delivery could not be settled now: Medusa's event bus retries the webhook event. */
export class WebhookNotSettledError extends Error {
  constructor(message: string) {
    super(`invoice-payments webhook not settled yet, to be retried: ${message}`);
    this.name = 'WebhookNotSettledError';
  }
}

/**
 * A delivery that reached Medusa's `/hooks/payment/<provider>` route, taken through the module's own path: the
 * `Webhook` token is authenticated as the module's route does (§6: merchant part, service validation), the
 * delivery is stored in the inbox once (a retry is a duplicate), and its entry is processed now through the
 * status path, so the session's status is applied before Medusa hears the action.
 *
 * - Forged, unknown or unreadable deliveries, test deliveries and invoices of no Medusa session: `not_supported`.
 * - The token could not be checked now (the service is unreachable), or the entry still waits (its invoice is not
 *   committed yet, a database error): {@link WebhookNotSettledError}, so Medusa's event bus tries again; the inbox
 *   keeps retrying on its own too, and nothing is lost.
 */
export async function webhookAction(
  app: INestApplicationContext,
  payload: MedusaWebhookPayload,
): Promise<MedusaWebhookActionResult> {
  const auth = await app.get(WebhookTokenService, { strict: false }).authenticate(payload?.headers ?? {});
  if (!auth.ok) {
    if (auth.status === 503) throw new WebhookNotSettledError(auth.reason);
    logger.warn(`webhook delivery not acted on: ${auth.reason}`);
    return { action: 'not_supported' };
  }
  const body = bodyOf(payload);
  if (!body) {
    logger.warn('webhook delivery not acted on: the body is not a JSON object');
    return { action: 'not_supported' };
  }
  const delivery = readDelivery(body);
  const problem = deliveryTextProblem(delivery);
  if (problem) {
    logger.warn(`webhook delivery not acted on: ${problem}`);
    return { action: 'not_supported' };
  }
  const stored = await app.get(WebhookInboxService, { strict: false }).store(delivery, body, auth.webhookId);
  if (stored.state === 'pending') {
    await app.get(WebhookInboxProcessor, { strict: false }).processNow(stored.id, stored.gatewayId);
  }
  if (!delivery.invoice) return { action: 'not_supported' };
  const entry = await app.get(DataSource).getRepository(WebhookInboxEntry).findOneBy({ id: stored.id });
  if (entry?.state === 'pending')
    throw new WebhookNotSettledError(entry.lastError ?? 'the entry is still pending');
  if (entry?.state !== 'processed') return { action: 'not_supported' };
  const record = await app
    .get(InvoiceRecordStore, { strict: false })
    .findByInvoice(delivery.invoice.id, delivery.invoice.referrer);
  return record ? webhookActionOfRecord(record) : { action: 'not_supported' };
}

/** The parsed body Medusa passes, else its raw body parsed here. */
function bodyOf(payload: MedusaWebhookPayload): Record<string, unknown> | null {
  const data = payload?.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length > 0)
    return data;
  const raw = payload?.rawData;
  if (raw === undefined || raw === null) return null;
  const parsed = parseJsonObject(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8'));
  return parsed.ok ? parsed.value : null;
}
