import { Logger } from '@nestjs/common';
import { OrderNotPaidError } from '../shipping/errors';
import type { RecordShipmentResult } from '../shipping/types';
import { invoicePaymentsRuntime, servicesOf } from './runtime';
import type { InvoicePaymentsMedusaOptions } from './types';

const logger = new Logger('InvoicePayments:Medusa');

/** Medusa's event when a fulfillment is marked shipped (`FulfillmentWorkflowEvents.SHIPMENT_CREATED`). */
export const MEDUSA_SHIPMENT_EVENT = 'shipment.created';

/** A shipped Medusa order's tracking data: the payment sessions of its payment collections and the label. */
export interface MedusaShipment {
  /** Medusa payment session ids of the order (each is the order key of one invoice of this module). */
  sessionIds: string[];
  trackingCode: string;
  trackingUrl?: string;
  carrier?: string;
}

/**
 * Queues the tracking code for the paid invoice among the order's sessions (the tracking outbox posts it to the
 * service, retrying through outages). `null` when no session of the order has a paid invoice of this module (another
 * provider took the payment, or it is not paid): nothing is sent.
 */
export async function recordMedusaShipment(
  options: InvoicePaymentsMedusaOptions,
  shipment: MedusaShipment,
): Promise<RecordShipmentResult | null> {
  const { tracking } = servicesOf(await invoicePaymentsRuntime(options));
  for (const sessionId of shipment.sessionIds) {
    try {
      return await tracking.recordShipment({
        orderId: sessionId,
        trackingCode: shipment.trackingCode,
        trackingUrl: shipment.trackingUrl,
        carrier: shipment.carrier,
      });
    } catch (err) {
      if (!(err instanceof OrderNotPaidError)) throw err;
    }
  }
  return null;
}

/** The slice of Medusa's `query` the subscriber uses. */
interface MedusaQuery {
  graph(input: {
    entity: string;
    fields: string[];
    filters: Record<string, unknown>;
  }): Promise<{ data: unknown[] }>;
}

interface FulfillmentRow {
  labels?: Array<{ tracking_number?: string | null; tracking_url?: string | null }> | null;
  provider_id?: string | null;
  order?: {
    payment_collections?: Array<{ payment_sessions?: Array<{ id: string; provider_id: string }> }>;
  } | null;
}

/**
 * A Medusa subscriber handler for {@link MEDUSA_SHIPMENT_EVENT}: reads the shipped fulfillment's first label
 * (`tracking_number`, `tracking_url`) and its order's payment sessions of this provider through Medusa's `query`,
 * then {@link recordMedusaShipment}. Give it the provider's options (the same object as in `medusa-config.ts`,
 * so both share one runtime). A failure is logged and rethrown, so Medusa's event bus may retry.
 *
 * @example
 * // src/subscribers/invoice-payments-tracking.ts
 * import { invoicePaymentsShipmentSubscriber, MEDUSA_SHIPMENT_EVENT } from 'nestjs-invoice-payments/medusa';
 * import { invoicePaymentsOptions } from '../options/resolve';
 * export default invoicePaymentsShipmentSubscriber(invoicePaymentsOptions);
 * export const config = { event: MEDUSA_SHIPMENT_EVENT };
 */
export function invoicePaymentsShipmentSubscriber(options: InvoicePaymentsMedusaOptions) {
  return async function invoicePaymentsTracking({
    event,
    container,
  }: {
    event: { data: { id?: string } };
    container: { resolve(name: string): unknown };
  }): Promise<void> {
    const fulfillmentId = event?.data?.id;
    if (!fulfillmentId) return;
    const query = container.resolve('query') as MedusaQuery;
    const { data } = await query.graph({
      entity: 'fulfillment',
      fields: [
        'id',
        'labels.tracking_number',
        'labels.tracking_url',
        'provider_id',
        'order.payment_collections.payment_sessions.id',
        'order.payment_collections.payment_sessions.provider_id',
      ],
      filters: { id: fulfillmentId },
    });
    const row = data[0] as FulfillmentRow | undefined;
    const label = row?.labels?.find((l) => l?.tracking_number);
    if (!row || !label?.tracking_number) return;
    const sessionIds = (row.order?.payment_collections ?? [])
      .flatMap((c) => c.payment_sessions ?? [])
      .filter((s) => s.provider_id.startsWith('pp_invoice-payments_'))
      .map((s) => s.id);
    try {
      const result = await recordMedusaShipment(options, {
        sessionIds,
        trackingCode: label.tracking_number,
        // Medusa's label URL is free text: sent only when it is a web address.
        trackingUrl: /^https?:\/\//i.test(label.tracking_url ?? '')
          ? (label.tracking_url as string)
          : undefined,
      });
      if (!result)
        logger.log(`fulfillment ${fulfillmentId}: no paid invoice of this provider, no tracking code sent`);
    } catch (err) {
      logger.error(`fulfillment ${fulfillmentId}: tracking code not recorded: ${(err as Error).message}`);
      throw err;
    }
  };
}
