import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InvoiceRecordStore } from '../checkout/invoice-record.store';
import { DeliveryIntake } from '../webhooks/delivery-intake';
import { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';
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
  // The one intake of every host: the store's wire profile, the same bounds, token check and dead letters.
  const result = await app
    .get(DeliveryIntake, { strict: false })
    .accept({ headers: payload?.headers ?? {}, body: bodyOf(payload) }, true);
  if (!result.ok) {
    if (result.status === 503) throw new WebhookNotSettledError(result.message);
    logger.warn(`webhook delivery not acted on (${result.status}): ${result.message}`);
    return { action: 'not_supported' };
  }
  const { stored } = result;
  if (!stored.gatewayId) return { action: 'not_supported' };
  const entry = await app.get(DataSource).getRepository(WebhookInboxEntry).findOneBy({ id: stored.id });
  if (entry?.state === 'pending')
    throw new WebhookNotSettledError(entry.lastError ?? 'the entry is still pending');
  // The record the inbox applied it to: none for another store's invoice (left alone, `ignored`).
  if (entry?.state !== 'processed' || !entry.invoiceRecordId) return { action: 'not_supported' };
  const record = await app
    .get(InvoiceRecordStore, { strict: false })
    .get(entry.invoiceRecordId)
    .catch(() => null);
  return record ? webhookActionOfRecord(record) : { action: 'not_supported' };
}

/** The parsed body Medusa passes, else its raw bytes (the intake parses them, within the size limit). */
function bodyOf(payload: MedusaWebhookPayload): unknown {
  const data = payload?.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length > 0)
    return data;
  const raw = payload?.rawData;
  if (raw === undefined || raw === null) return null;
  return Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
}
