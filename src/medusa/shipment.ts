import { OrderNotPaidError } from '../shipping/errors';
import type { RecordShipmentResult } from '../shipping/types';
import { invoicePaymentsRuntime, servicesOf } from './runtime';
import type { InvoicePaymentsMedusaOptions } from './types';

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
