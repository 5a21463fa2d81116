import { isHttpUrl } from '../gateway/dto/validators';
import {
  DEFAULT_SHIPMENT_EVENT,
  MAX_CARRIER_LENGTH,
  MAX_ORDER_ID_LENGTH,
  MAX_TRACKING_CODE_LENGTH,
  MAX_TRACKING_URL_LENGTH,
} from './constants';
import { ShipmentValidationError } from './errors';
import type {
  RecordShipmentInput,
  ResolvedShippingOptions,
  ShippingModuleOptions,
  ValidShipment,
} from './types';
import { textProblem } from '../core/text-bounds';

/** Fills in the defaults of {@link ShippingOptions} and refuses nonsense, naming the option. */
export function resolveShippingOptions(options: ShippingModuleOptions = {}): ResolvedShippingOptions {
  const event = options.shipmentEvent ?? DEFAULT_SHIPMENT_EVENT;
  if (event !== false && (typeof event !== 'string' || event.trim() === '')) {
    throw new Error('shipping.shipmentEvent must be a non-empty event name or false');
  }
  const backoff = {
    initialDelayMs: positive('shipping.backoff.initialDelayMs', options.backoff?.initialDelayMs, 10_000),
    maxDelayMs: positive('shipping.backoff.maxDelayMs', options.backoff?.maxDelayMs, 30 * 60_000),
    factor: positive('shipping.backoff.factor', options.backoff?.factor, 2),
    jitter: options.backoff?.jitter ?? 0.5,
  };
  if (!(backoff.factor >= 1)) throw new Error('shipping.backoff.factor must be at least 1');
  if (!(backoff.jitter >= 0 && backoff.jitter <= 1))
    throw new Error('shipping.backoff.jitter must be between 0 and 1');
  if (backoff.maxDelayMs < backoff.initialDelayMs) {
    throw new Error('shipping.backoff.maxDelayMs must not be below shipping.backoff.initialDelayMs');
  }
  return {
    shipmentEvent: event,
    mapShipmentEvent: options.mapShipmentEvent ?? defaultShipmentMapper,
    autoStartWorker: options.autoStartWorker ?? true,
    pollIntervalMs: positive('shipping.pollIntervalMs', options.pollIntervalMs, 5_000),
    batchSize: positiveInteger('shipping.batchSize', options.batchSize, 10),
    leaseMs: positive('shipping.leaseMs', options.leaseMs, 60_000),
    maxAttempts: positiveInteger('shipping.maxAttempts', options.maxAttempts, 20),
    backoff,
    retentionMs: positive('shipping.retentionMs', options.retentionMs, 30 * 86_400_000),
  };
}

/** The default event mapping: the payload is a {@link RecordShipmentInput} already. */
export function defaultShipmentMapper(payload: unknown): RecordShipmentInput {
  if (typeof payload !== 'object' || payload === null) {
    throw new ShipmentValidationError('payload', 'the shipment event must carry an object');
  }
  const p = payload as Record<string, unknown>;
  return {
    orderId: p.orderId as string,
    trackingCode: p.trackingCode as string,
    carrier: p.carrier as string | undefined,
    trackingUrl: p.trackingUrl as string | undefined,
  };
}

/**
 * Checks a shipment and returns it trimmed; throws {@link ShipmentValidationError} naming the first bad field.
 * Codes are compared as given (after trimming): the module does not guess that `br1` and `BR1` are one code.
 */
export function validateShipment(input: unknown): ValidShipment {
  if (typeof input !== 'object' || input === null) {
    throw new ShipmentValidationError('shipment', 'must be an object');
  }
  const i = input as Record<string, unknown>;
  const orderId = requiredText('orderId', i.orderId, MAX_ORDER_ID_LENGTH);
  const trackingCode = requiredText('trackingCode', i.trackingCode, MAX_TRACKING_CODE_LENGTH);
  if (/\s/.test(trackingCode)) throw new ShipmentValidationError('trackingCode', 'must not contain spaces');
  const carrier = optionalText('carrier', i.carrier, MAX_CARRIER_LENGTH);
  const trackingUrl = optionalText('trackingUrl', i.trackingUrl, MAX_TRACKING_URL_LENGTH);
  if (trackingUrl !== null && !isHttpUrl(trackingUrl)) {
    throw new ShipmentValidationError('trackingUrl', 'must be an http or https URL');
  }
  return { orderId, trackingCode, carrier, trackingUrl };
}

function requiredText(field: string, value: unknown, max: number): string {
  if (value === undefined || value === null) throw new ShipmentValidationError(field, 'is required');
  const text = optionalText(field, value, max);
  if (text === null) throw new ShipmentValidationError(field, 'must not be empty');
  return text;
}

function optionalText(field: string, value: unknown, max: number): string | null {
  const problem = textProblem(value, { max });
  if (problem) throw new ShipmentValidationError(field, problem);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number`);
  }
  return value;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const n = positive(name, value, fallback);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a positive integer`);
  return n;
}
