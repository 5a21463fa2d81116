import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { HOST_WEBHOOKS, type HostWebhooks } from '../core/ports';
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
 * A delivery that reached Medusa's `/hooks/payment/<provider>` route, taken through the module's own path
 * ({@link HostWebhooks}: the route's bounds and token check, the inbox once, processed and waited for), answered
 * with what the service said of the invoice in the lookup that answered it.
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
  const outcome = await app.get<HostWebhooks>(HOST_WEBHOOKS).settle(payload);
  if (outcome.kind === 'later') throw new WebhookNotSettledError(outcome.reason);
  if (outcome.kind === 'none') {
    logger.warn(`webhook delivery not acted on: ${outcome.reason}`);
    return { action: 'not_supported' };
  }
  const { record, confirmed } = outcome;
  // Medusa's session, amounts and session status as of what the service said in this delivery's lookup.
  return webhookActionOfRecord({
    ...record,
    statusCode: confirmed.code,
    paidCents: confirmed.paidCents ?? record.paidCents,
  });
}
