import type { BackoffOptions } from '../core/queue/backoff';
import type { RecordShipmentInput } from '../domain/shipping.types';
import { DAY, int, MINUTE, resolveNumbers, type Numbers, type NumberOptions } from '../domain/option-fields';

/** The host's shipment event, unless `shipping.shipmentEvent` names another. */
export const DEFAULT_SHIPMENT_EVENT = 'order.shipment_created';

/** Injection token of the resolved `ResolvedShippingOptions`. */
export const SHIPPING_OPTIONS = Symbol('INVOICE_PAYMENTS_SHIPPING_OPTIONS');

const SHIPPING = {
  /** How often the worker looks for due rows. Default 5 000 ms (a new shipment wakes it at once). */
  pollIntervalMs: int(1, 5000),
  /** Rows claimed per round. Default 10. */
  batchSize: int(1, 10),
  /** How long a claim holds; a dead worker's rows are taken over after it. Above one post's time. Default 60 000 ms. */
  leaseMs: int(1, MINUTE),
  /** Attempts before a row is marked failed and `TrackingFailed` is emitted. Default 20 (about 5 hours). */
  maxAttempts: int(1, 20),
  /** How long sent rows are kept before the worker deletes them (failed and waiting ones never). Default 30 days. */
  retentionMs: int(1, 30 * DAY),
} as const;

/** Options of the shipping capability (`InvoicePaymentsModuleOptions.shipping`). */
export interface ShippingOptions extends NumberOptions<typeof SHIPPING> {
  /** The host's shipment event (default `order.shipment_created`); `false`: the host calls `recordShipment`. */
  shipmentEvent?: string | false;
  /** Turns the event's payload into a shipment. Default: the payload is a {@link RecordShipmentInput}. */
  mapShipmentEvent?: (payload: unknown) => RecordShipmentInput;
  backoff?: Partial<BackoffOptions>;
}

/** {@link ShippingOptions} with every default filled in; the worker starts with the root module's `workers`. */
export type ResolvedShippingOptions = ReturnType<typeof resolveShippingOptions>;

const SHIPPING_BACKOFF = {
  initialDelayMs: int(1, 10_000),
  maxDelayMs: int(1, 30 * MINUTE),
  factor: { min: 1, default: 2, fraction: true },
  jitter: { min: 0, max: 1, default: 0.5, fraction: true },
} as const satisfies Numbers<BackoffOptions>;

export function resolveShippingOptions(options: ShippingOptions = {}, workers = true) {
  const event: string | false = options.shipmentEvent ?? DEFAULT_SHIPMENT_EVENT;
  if (event !== false && (typeof event !== 'string' || event.trim() === '')) {
    throw new Error('shipping.shipmentEvent must be a non-empty event name or false');
  }
  const backoff = resolveNumbers('shipping.backoff', SHIPPING_BACKOFF, options.backoff);
  if (backoff.maxDelayMs < backoff.initialDelayMs) {
    throw new Error('shipping.backoff.maxDelayMs must not be below shipping.backoff.initialDelayMs');
  }
  return {
    ...resolveNumbers('shipping', SHIPPING, options),
    shipmentEvent: event,
    // By default the payload is a shipment already: `recordShipment` checks it like any other.
    mapShipmentEvent: options.mapShipmentEvent ?? ((payload: unknown) => payload as RecordShipmentInput),
    autoStartWorker: workers,
    backoff,
  };
}
