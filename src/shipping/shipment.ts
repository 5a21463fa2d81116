import { isHttpUrl } from '../gateway/dto/validators';
import { ShipmentValidationError } from '../domain/shipping.errors';
import type { ValidShipment } from '../domain/shipping.types';
import { textProblem } from '../domain/text-and-days';

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
