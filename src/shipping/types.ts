import type { BackoffOptions } from '../core/queue/backoff';

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
export interface ValidShipment {
  orderId: string;
  trackingCode: string;
  carrier: string | null;
  trackingUrl: string | null;
}

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

/** Payload of `InvoicePaymentsEvents.TrackingFailed`. */
export interface TrackingFailedEvent {
  orderId: string;
  code: string;
  /** The last error's message (never a secret: the gateway client keeps tokens out of its messages). */
  error: string;
  /** The gateway error's kind (`state_conflict`, `unavailable`, ...), or `unknown`. */
  errorKind: string;
  invoiceRecordId: string;
  outboxId: string;
  attempts: number;
}

/** Options of the shipping capability (`InvoicePaymentsModuleOptions.shipping`). */
export interface ShippingOptions {
  /**
   * Name of the host's shipment event on `@nestjs/event-emitter`. Default `order.shipment_created`.
   * `false`: no listener; the host calls `TrackingService.recordShipment` itself.
   */
  shipmentEvent?: string | false;
  /**
   * Turns the event's payload into a shipment. Default: the payload is a {@link RecordShipmentInput}
   * (`{ orderId, trackingCode, carrier?, trackingUrl? }`).
   */
  mapShipmentEvent?: (payload: unknown) => RecordShipmentInput;
  /** How often the worker looks for due rows. Default 5 000 ms (a new shipment wakes it at once). */
  pollIntervalMs?: number;
  /** Rows claimed per round. Default 10. */
  batchSize?: number;
  /**
   * How long a claim stays valid. A worker that dies while holding rows loses them after this time and another
   * worker (or the same one, restarted) takes them over. Must exceed one post's whole time (the client's timeout
   * and its own retries). Default 60 000 ms.
   */
  leaseMs?: number;
  /** Attempts before a row is marked failed and `TrackingFailed` is emitted. Default 20 (about 5 hours). */
  maxAttempts?: number;
  backoff?: Partial<BackoffOptions>;
  /**
   * How long sent rows are kept, in ms, before the worker deletes them (hourly, in small batches): the outbox keeps
   * what a person may look at, for a bounded time. Failed and waiting rows are never deleted. Default 2592000000
   * (30 days).
   */
  retentionMs?: number;
}

/**
 * What the shipping capability's own module takes: the options, and whether its worker starts with the application
 * (the root module sets it from `workers`, the one switch; tests of the capability alone start it themselves).
 */
export interface ShippingModuleOptions extends ShippingOptions {
  autoStartWorker?: boolean;
}

/** {@link ShippingOptions} with every default filled in. */
export interface ResolvedShippingOptions {
  shipmentEvent: string | false;
  mapShipmentEvent: (payload: unknown) => RecordShipmentInput;
  autoStartWorker: boolean;
  pollIntervalMs: number;
  batchSize: number;
  leaseMs: number;
  maxAttempts: number;
  backoff: BackoffOptions;
  retentionMs: number;
}
