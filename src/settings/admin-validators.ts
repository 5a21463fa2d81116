import { IsIn, IsInt, Max, Min, ValidateBy, type ValidationOptions } from 'class-validator';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../domain/text-and-days';
import { isCalendarDay, isHttpUrl } from '../gateway/dto/validators';
import { URL_PLACEHOLDER } from '../options/checkout.options';

/** `name`: the constraint the admin API's codes know it by. */
function rule(name: string, message: string, validate: (value: unknown) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    ValidateBy({ name, validator: { validate, defaultMessage: () => message } }, options);
}

export const IsCalendarDate = rule(
  'isCalendarDate',
  '$property must be a calendar day written YYYY-MM-DD',
  isCalendarDay,
);

export const IsIsoInstant = rule(
  'isIsoInstant',
  '$property must be an ISO-8601 instant such as 2026-11-23T03:00:00Z',
  (value) =>
    typeof value === 'string' &&
    value.length <= 40 &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
);

function isAdminUrl(value: unknown, template: boolean): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  const text = template ? value.replace(URL_PLACEHOLDER, 'x') : value;
  return !/[{}]/.test(text) && isHttpUrl(text) && new URL(text).hostname.length > 0;
}

/** An http(s) URL (loopback hosts too: stores test against them); `template`: with the checkout's placeholders. */
export function IsHttpUrl(options?: ValidationOptions & { template?: boolean }): PropertyDecorator {
  const template = options?.template === true;
  const message = template
    ? '$property must be an http or https URL (placeholders {order_id}, {display_id}, {reference})'
    : '$property must be an http or https URL';
  return rule('isHttpUrl', message, (v) => isAdminUrl(v, template))(options);
}

/** A whole number from `min` to `max`. */
export function IsIntIn(min: number, max: number): PropertyDecorator {
  const atLeast = min === 0 ? '$property must be 0 or more' : `$property must be at least ${min}`;
  return (target, key) => {
    // Bottom up, as stacked decorators register: the first problem of the 400 is the type's.
    Max(max, { message: `$property must be at most ${max}` })(target, key);
    Min(min, { message: atLeast })(target, key);
    IsInt({ message: '$property must be an integer' })(target, key);
  };
}

/** A string free of control characters; other types pass here. */
export const IsPlainText = rule(
  'isPlainText',
  `$property ${CONTROL_CHARACTERS_PROBLEM}`,
  (value) => typeof value !== 'string' || !CONTROL_CHARACTERS.test(value),
);

/** `IsIn(values)` whose message lists them: "$property must be a, b or c". */
export function IsOneOf(values: readonly string[]): PropertyDecorator {
  return IsIn(values, { message: `$property must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}` });
}
