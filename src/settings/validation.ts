import { BadRequestException, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { registerDecorator, ValidationOptions } from 'class-validator';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM, idProblem } from '../core/text-bounds';
import {
  problemsOf,
  validationProblems,
  type AdminErrorCode,
  type AdminFieldProblem,
} from './admin-error-codes';

/**
 * Body of a 400 from the admin API: one message per field, fields as dotted paths (`ecommerce.storeId`), and the
 * same as stable codes: `code`, `field` and `limit` of the first problem, every problem in `problems`.
 */
export interface AdminValidationErrorBody {
  statusCode: 400;
  error: 'Bad Request';
  code: AdminErrorCode;
  field: string;
  limit?: number | string;
  message: string;
  errors: Record<string, string[]>;
  problems: AdminFieldProblem[];
}

/**
 * A 400 in the admin API's shape. `errors`: messages per field (found outside class-validator, code `invalid`
 * unless `problems` say better).
 */
export function adminValidationError(
  errors: Record<string, string[]>,
  problems: AdminFieldProblem[] = problemsOf(errors),
): BadRequestException {
  const [first] = problems;
  const body: AdminValidationErrorBody = {
    statusCode: 400,
    error: 'Bad Request',
    code: first?.code ?? 'invalid',
    field: first?.field ?? Object.keys(errors)[0] ?? '',
    ...(first?.limit !== undefined ? { limit: first.limit } : {}),
    message: `invalid ${Object.keys(errors).join(', ')}`,
    errors,
    problems,
  };
  return new BadRequestException(body);
}

/**
 * The admin API's validation pipe: strips nothing silently (an unknown field is an error), converts query strings
 * to numbers where the DTO says so, and answers `{ message, errors: { field: [...] } }`. Rejected values are never
 * echoed back: a mistyped secret must not end up in a response or a log.
 */
export function adminValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // The target lets the codes name their bounds (`limit`); neither it nor the value is ever put in an answer.
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => adminValidationError(flattenErrors(errors), validationProblems(errors)),
  });
}

/** class-validator's nested errors → `{ 'a.b': ['message', ...] }`. */
export function flattenErrors(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) out[path] = Object.values(error.constraints);
    Object.assign(out, flattenErrors(error.children ?? [], path));
  }
  return out;
}

/** The value is an IANA time zone the runtime knows (`America/Sao_Paulo`). */
export function IsTimeZone(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTimeZone',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be an IANA time zone such as America/Sao_Paulo', ...options },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || value.length === 0) return false;
          try {
            new Intl.DateTimeFormat('en-US', { timeZone: value });
            return true;
          } catch {
            return false;
          }
        },
      },
    });
}

/** A real calendar day written `YYYY-MM-DD`. */
export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be a calendar day written YYYY-MM-DD', ...options },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
          const date = new Date(`${value}T00:00:00Z`);
          return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
        },
      },
    });
}

/** An instant written in ISO-8601 with its offset (`2026-11-23T03:00:00.000Z`), within 40 characters. */
export function IsIsoInstant(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIsoInstant',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be an ISO-8601 instant such as 2026-11-23T03:00:00Z', ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' &&
          value.length <= 40 &&
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
          !Number.isNaN(Date.parse(value)),
      },
    });
}

/** Placeholders the checkout fills in URL templates. */
const TEMPLATE_PLACEHOLDERS = /\{(order_id|display_id|reference)\}/g;

/**
 * An http(s) URL; with `template`, the checkout's placeholders `{order_id}`, `{display_id}`, `{reference}` are
 * allowed (and no others). Hosts without a dot
 * (`localhost`, IP addresses) are accepted: stores test against loopback.
 */
export function IsHttpUrl(options?: ValidationOptions & { template?: boolean }): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be an http or https URL', ...options },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || value.length > 2048) return false;
          const text = options?.template ? value.replace(TEMPLATE_PLACEHOLDERS, 'x') : value;
          if (/[{}]/.test(text)) return false;
          try {
            const url = new URL(text);
            return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
          } catch {
            return false;
          }
        },
      },
    });
}

/** A string free of control characters (the module's one rule, `CONTROL_CHARACTERS`); other types pass here. */
export function IsPlainText(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPlainText',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property ${CONTROL_CHARACTERS_PROBLEM}`, ...options },
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !CONTROL_CHARACTERS.test(value),
      },
    });
}

/**
 * An id from the admin API's path (`invoices/:id`, `alerts/:id`...), checked before it reaches SQL: a NUL byte or
 * a 10 kB string is a 400 naming `id`, never a database error.
 */
export class AdminIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    const problem = idProblem(value);
    if (problem) throw adminValidationError({ id: [problem] });
    return value as string;
  }
}
