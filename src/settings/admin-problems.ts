import { BadRequestException, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

/** class-validator's constraint names → the API's codes; `limitAt`: where the constraint holds its bound. */
const CONSTRAINT_CODES = {
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
} as const;

/** The code of an answer whose error carries none, by HTTP status. */
const STATUS_CODES = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'too_many_requests',
  500: 'internal',
} as const;

/** Stable codes of the admin API's errors: the page words them in the reader's language. */
export const ADMIN_ERROR_CODES = [
  ...Object.values(CONSTRAINT_CODES).map((c) => c.code),
  'too_early',
  'no_encryption_key',
  'action_not_allowed',
  ...Object.values(STATUS_CODES),
] as const;

export type AdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

/** One problem of a 400; `limit`: the bound broken (a number, or a `YYYY-MM-DD` day for `too_early`). */
interface AdminFieldProblem {
  field: string;
  code: AdminErrorCode;
  limit?: number | string;
  message: string;
}

export function codeOfStatus(status: number): AdminErrorCode {
  return STATUS_CODES[status as keyof typeof STATUS_CODES] ?? (status >= 500 ? 'internal' : 'invalid');
}

/** The bound of `constraint` on `target`'s `property`, from class-validator's metadata. */
function limitOf(target: object | undefined, property: string, constraint: string, at: number) {
  const value: unknown = target
    ? getMetadataStorage()
        .getTargetValidationMetadatas(target.constructor, '', true, false)
        .find((m) => m.propertyName === property && m.name === constraint)?.constraints?.[at]
    : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** class-validator's (nested) errors, one problem per broken constraint, fields as dotted paths. */
export function validationProblems(errors: ValidationError[], parent = ''): AdminFieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]): AdminFieldProblem => {
      const known = CONSTRAINT_CODES[constraint as keyof typeof CONSTRAINT_CODES] ?? { code: 'invalid' };
      const at = 'limitAt' in known ? known.limitAt : undefined;
      const limit = at === undefined ? undefined : limitOf(error.target, error.property, constraint, at);
      return { field, code: known.code, ...(limit !== undefined ? { limit } : {}), message };
    });
    return [...own, ...validationProblems(error.children ?? [], field)];
  });
}

export function problemsOf(
  errors: Record<string, string[]>,
  code: AdminErrorCode = 'invalid',
  limit?: number | string,
): AdminFieldProblem[] {
  return Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => ({ field, code, ...(limit !== undefined ? { limit } : {}), message })),
  );
}

/** The admin API's one 400: `errors` (messages per field), `problems`, and the first one's `code`, `field`, `limit`. */
export function adminValidationError(problems: AdminFieldProblem[]): BadRequestException {
  const errors: Record<string, string[]> = {};
  for (const { field, message } of problems) (errors[field] ??= []).push(message);
  const [first] = problems;
  return new BadRequestException({
    statusCode: 400,
    error: 'Bad Request',
    code: first?.code ?? 'invalid',
    field: first?.field ?? '',
    ...(first?.limit !== undefined ? { limit: first.limit } : {}),
    message: `invalid ${Object.keys(errors).join(', ')}`,
    errors,
    problems,
  });
}
