import { isHttpUrl } from '../gateway/dto/validators';
import { ShipmentValidationError } from './errors';
import type { RecordShipmentInput, ValidShipment } from './types';
import { textProblem } from '../core/text-bounds';

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
  const orderId = requiredText('orderId', i.orderId, 128); // as `InvoiceRecord.orderId`;
  const trackingCode = requiredText('trackingCode', i.trackingCode, 64); // Correios: 13;
  if (/\s/.test(trackingCode)) throw new ShipmentValidationError('trackingCode', 'must not contain spaces');
  const carrier = optionalText('carrier', i.carrier, 64);
  const trackingUrl = optionalText('trackingUrl', i.trackingUrl, 2048);
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
