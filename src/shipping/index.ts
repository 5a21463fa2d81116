/** The shipping capability's public surface (re-exported by the package's `index.ts`). */
export { ShippingModule } from './shipping.module';
export type { ShippingModuleExtras } from './shipping.module';
export { TrackingService } from './tracking.service';
export { TrackingWorker } from './tracking.worker';
export { ShipmentListener } from './shipment.listener';
export { TrackingOutbox } from './tracking-outbox.entity';
export { OrderNotPaidError, ShipmentValidationError } from './errors';
export { DEFAULT_SHIPMENT_EVENT, SHIPPING_OPTIONS, TRACKING_POSTER } from './constants';
export { resolveShippingOptions, validateShipment } from './shipping-options';
export { retryDelayMs } from './backoff';
export type {
  BackoffOptions,
  RecordShipmentInput,
  RecordShipmentResult,
  ResolvedShippingOptions,
  ShippingOptions,
  TrackingFailedEvent,
  TrackingOutboxStatus,
  TrackingPostedEvent,
  TrackingPoster,
  TrackingRunResult,
  ValidShipment,
} from './types';
