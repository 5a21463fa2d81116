import { ClassConstructor, plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { GatewayValidationError } from '../errors';

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
