/** A shipped order's tracking data, as the host gives it. */
export interface RecordShipmentInput {
  /** The host's order id: the order must have a paid invoice (status 4, 5 or 8). */
  orderId: string;
  /** The carrier's tracking code, e.g. `BR123456789BR`. Surrounding spaces are dropped. */
  trackingCode: string;
  /** Carrier name, e.g. `Correios`. */
  carrier?: string;
  /** Public tracking page (http or https). */
  trackingUrl?: string;
}

/** A shipment after validation: trimmed, empty optional fields as `null`. */
export type ValidShipment = Pick<RecordShipmentInput, 'orderId' | 'trackingCode'> &
  Record<'carrier' | 'trackingUrl', string | null>;

/** What `recordShipment` did. */
export interface RecordShipmentResult {
  /** The outbox row that carries this code. */
  outboxId: string;
  orderId: string;
  code: string;
  /** `duplicate`: already queued or posted, nothing new; `requeued`: it had failed or been superseded. */
  outcome: 'queued' | 'duplicate' | 'requeued';
}

/** `failed`: a permanent error or `maxAttempts` (`TrackingFailed` emitted); `superseded`: a newer code won. */
export type TrackingOutboxStatus = 'pending' | 'sent' | 'failed' | 'superseded';

/** Payload of `InvoicePaymentsEvents.TrackingPosted`. */
export interface TrackingPostedEvent {
  orderId: string;
  code: string;
  invoiceRecordId: string;
  carrier: string | null;
  url: string | null;
  outboxId: string;
  attempts: number;
}

/** Payload of `InvoicePaymentsEvents.TrackingFailed`: the last error (no secret) and its kind (or `unknown`). */
export type TrackingFailedEvent = Omit<TrackingPostedEvent, 'carrier' | 'url'> & {
  error: string;
  errorKind: string;
};
