import type { ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

/**
 * Stable codes of the admin API's errors, so a page can say what is wrong in the reader's language (the English
 * `message` stays for API users). A 400 names the field (`field`, a dotted path) and, for bounds, the `limit`.
 */
export const ADMIN_ERROR_CODES = [
  'too_large',
  'too_small',
  'too_long',
  'bad_length',
  'not_integer',
  'not_text',
  'not_allowed_value',
  'bad_format',
  'not_list',
  'empty_list',
  'repeated',
  'not_object',
  'not_url',
  'not_time_zone',
  'not_date',
  'not_instant',
  'too_early',
  'unknown_field',
  'no_encryption_key',
  'invalid',
  'action_not_allowed',
  'not_found',
  'conflict',
  'unauthorized',
  'forbidden',
  'too_many_requests',
  'internal',
] as const;

/** One of {@link ADMIN_ERROR_CODES}. */
export type AdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

/** One problem of a 400: the field, its code, and the bound it broke when there is one. */
export interface AdminFieldProblem {
  field: string;
  code: AdminErrorCode;
  /** The bound: a number (`90`, characters, cents) or a day (`YYYY-MM-DD`) for `too_early`. */
  limit?: number | string;
  message: string;
}

/** class-validator's constraint names → the API's codes; `limit` is the constraint's bound where it has one. */
const CONSTRAINT_CODES: Record<string, { code: AdminErrorCode; limitAt?: number }> = {
  max: { code: 'too_large', limitAt: 0 },
  min: { code: 'too_small', limitAt: 0 },
  maxLength: { code: 'too_long', limitAt: 0 },
  isLength: { code: 'bad_length', limitAt: 1 },
  isInt: { code: 'not_integer' },
  isString: { code: 'not_text' },
  isIn: { code: 'not_allowed_value' },
  matches: { code: 'bad_format' },
  isArray: { code: 'not_list' },
  arrayMinSize: { code: 'empty_list' },
  arrayUnique: { code: 'repeated' },
  isObject: { code: 'not_object' },
  isHttpUrl: { code: 'not_url' },
  isTimeZone: { code: 'not_time_zone' },
  isCalendarDate: { code: 'not_date' },
  isIsoInstant: { code: 'not_instant' },
  whitelistValidation: { code: 'unknown_field' },
};

/** The bound of `constraint` on `target`'s `property`, read from class-validator's metadata. */
function limitOf(target: object | undefined, property: string, constraint: string, at: number) {
  if (!target) return undefined;
  const metadata = getMetadataStorage()
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .find((m) => m.propertyName === property && m.name === constraint);
  const value: unknown = metadata?.constraints?.[at];
  return typeof value === 'number' ? value : undefined;
}

/** class-validator's (nested) errors as problems, one per broken constraint, fields as dotted paths. */
export function validationProblems(errors: ValidationError[], parent = ''): AdminFieldProblem[] {
  const out: AdminFieldProblem[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      const known = CONSTRAINT_CODES[constraint];
      const limit =
        known?.limitAt === undefined
          ? undefined
          : limitOf(error.target, error.property, constraint, known.limitAt);
      out.push({ field, code: known?.code ?? 'invalid', ...(limit !== undefined ? { limit } : {}), message });
    }
    out.push(...validationProblems(error.children ?? [], field));
  }
  return out;
}

/** Messages per field (`{ field: ['...'] }`) as problems of code `invalid` (or `code` when given). */
export function problemsOf(
  errors: Record<string, string[]>,
  code: AdminErrorCode = 'invalid',
  limit?: number | string,
): AdminFieldProblem[] {
  return Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => ({ field, code, ...(limit !== undefined ? { limit } : {}), message })),
  );
}

/** The code of an HTTP status when the error carries none of its own. */
export function codeOfStatus(status: number): AdminErrorCode {
  const codes: Record<number, AdminErrorCode> = {
    400: 'invalid',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    429: 'too_many_requests',
  };
  return codes[status] ?? (status >= 500 ? 'internal' : 'invalid');
}
