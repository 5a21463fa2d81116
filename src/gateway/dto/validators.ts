import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { ValidateBy, ValidationError, ValidationOptions, validateSync } from 'class-validator';
import * as countries from 'i18n-iso-countries';
import { GatewayValidationError } from '../errors';

/**
 * Field validators of the DTOs. Their messages say what is expected and never repeat the value (it could be a
 * secret or personal data).
 */

/** A real calendar day written `YYYY-MM-DD` (no `2025-02-30`). */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

export function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Integer cents: a safe integer, at least zero (or above zero when `positive`). */
export function isCents(value: unknown, positive = false): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && (positive ? value > 0 : value >= 0);
}

/** CPF (11 digits) or CNPJ (14 characters, digits or the alphanumeric form), unformatted, with valid check digits. */
export function isTaxDocument(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (/^\d{11}$/.test(value)) return isValidCpf(value);
  if (/^[0-9A-Z]{12}\d{2}$/.test(value)) return isValidCnpj(value, { version: 2 });
  return false;
}

function rule(name: string, message: string, test: (value: unknown) => boolean, options?: ValidationOptions) {
  return ValidateBy({ name, validator: { validate: test, defaultMessage: () => message } }, options);
}

/** A non-empty, non-blank string. */
export const IsRequiredText = (options?: ValidationOptions) =>
  rule('isRequiredText', 'is required (a non-empty string)', isNonBlank, options);

export const IsCalendarDay = (options?: ValidationOptions) =>
  rule('isCalendarDay', 'must be a real calendar date written YYYY-MM-DD', isCalendarDay, options);

export const IsHttpUrl = (options?: ValidationOptions) =>
  rule('isHttpUrl', 'must be an absolute http(s) URL', isHttpUrl, options);

export const IsCents = (options?: ValidationOptions) =>
  rule('isCents', 'must be a non-negative integer number of cents', (v) => isCents(v), options);

export const IsPositiveCents = (options?: ValidationOptions) =>
  rule('isPositiveCents', 'must be a positive integer number of cents', (v) => isCents(v, true), options);

export const IsCardExpiry = (options?: ValidationOptions) =>
  rule(
    'isCardExpiry',
    'must be the card expiry written MM/YY',
    (v) => typeof v === 'string' && /^(0[1-9]|1[0-2])\/\d{2}$/.test(v),
    options,
  );

export const IsTaxDocument = (options?: ValidationOptions) =>
  rule(
    'isTaxDocument',
    'must be a valid CPF (11 digits) or CNPJ (14 characters), unformatted',
    isTaxDocument,
    options,
  );

export const IsAlpha3Country = (options?: ValidationOptions) =>
  rule(
    'isAlpha3Country',
    'must be a three-letter ISO 3166-1 country code (e.g. BRA)',
    (v) => typeof v === 'string' && /^[A-Z]{3}$/.test(v) && countries.alpha3ToAlpha2(v) !== undefined,
    options,
  );

export const IsPositiveInteger = (options?: ValidationOptions) =>
  rule(
    'isPositiveInteger',
    'must be a positive integer',
    (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0,
    options,
  );

/** Field path → messages, as `GatewayValidationError.fields` carries them. */
export type FieldErrors = Record<string, string[]>;

export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/**
 * Validates a call's input with its DTO class (and optional cross-field rules) before anything is sent.
 * Throws `GatewayValidationError` (`sent: false`) naming every bad field; returns the validated DTO instance.
 */
export function validateInput<T extends object>(
  dtoClass: ClassConstructor<T>,
  input: unknown,
  context: { operation: string; invoiceRef?: string },
  crossRules?: (dto: T) => FieldErrors,
): T {
  const errors: FieldErrors = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    addFieldError(errors, 'params', 'must be an object');
    throw failure(context, errors);
  }
  const dto = plainToInstance(dtoClass, input);
  const found = validateSync(dto, {
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  flatten(found, '', errors);
  if (Object.keys(errors).length === 0 && crossRules) Object.assign(errors, crossRules(dto));
  if (Object.keys(errors).length > 0) throw failure(context, errors);
  return dto;
}

function flatten(list: ValidationError[], prefix: string, out: FieldErrors): void {
  for (const error of list) {
    const path = /^\d+$/.test(error.property)
      ? `${prefix}[${error.property}]`
      : prefix
        ? `${prefix}.${error.property}`
        : error.property;
    for (const message of Object.values(error.constraints ?? {})) addFieldError(out, path, message);
    if (error.children?.length) flatten(error.children, path, out);
  }
}

function failure(
  context: { operation: string; invoiceRef?: string },
  fields: FieldErrors,
): GatewayValidationError {
  const summary = Object.entries(fields)
    .map(([field, messages]) => `${field} ${messages.join('; ')}`)
    .join(', ');
  return new GatewayValidationError(
    { ...context, sent: false },
    `invalid input: ${summary}; nothing was sent`,
    fields,
  );
}
