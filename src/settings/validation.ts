import { ValidateBy, ValidationOptions } from 'class-validator';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../core/text-bounds';

/** A class-validator rule: `name` is the constraint the admin API's codes know it by, `message` its default. */
function rule(name: string, message: string, validate: (value: unknown) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    ValidateBy({ name, validator: { validate, defaultMessage: () => message } }, options);
}

/** The value is an IANA time zone the runtime knows (`America/Sao_Paulo`). */
export const IsTimeZone = rule(
  'isTimeZone',
  '$property must be an IANA time zone such as America/Sao_Paulo',
  (value) => {
    if (typeof value !== 'string' || value.length === 0) return false;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  },
);

/** A real calendar day written `YYYY-MM-DD`. */
export const IsCalendarDate = rule(
  'isCalendarDate',
  '$property must be a calendar day written YYYY-MM-DD',
  (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  },
);

/** An instant written in ISO-8601 with its offset (`2026-11-23T03:00:00.000Z`), within 40 characters. */
export const IsIsoInstant = rule(
  'isIsoInstant',
  '$property must be an ISO-8601 instant such as 2026-11-23T03:00:00Z',
  (value) =>
    typeof value === 'string' &&
    value.length <= 40 &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
);

/** Placeholders the checkout fills in URL templates. */
const TEMPLATE_PLACEHOLDERS = /\{(order_id|display_id|reference)\}/g;

/** An http(s) URL of at most 2048 characters, `{` and `}` only as the placeholders of a template. */
function isHttpUrl(value: unknown, template: boolean): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  const text = template ? value.replace(TEMPLATE_PLACEHOLDERS, 'x') : value;
  if (/[{}]/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * An http(s) URL; with `template`, the checkout's placeholders `{order_id}`, `{display_id}`, `{reference}` are
 * allowed (and no others). Hosts without a dot (`localhost`, IP addresses) are accepted: stores test against
 * loopback.
 */
export function IsHttpUrl(options?: ValidationOptions & { template?: boolean }): PropertyDecorator {
  const template = options?.template === true;
  return rule('isHttpUrl', '$property must be an http or https URL', (v) => isHttpUrl(v, template))(options);
}

/** A string free of control characters (the module's one rule, `CONTROL_CHARACTERS`); other types pass here. */
export const IsPlainText = rule(
  'isPlainText',
  `$property ${CONTROL_CHARACTERS_PROBLEM}`,
  (value) => typeof value !== 'string' || !CONTROL_CHARACTERS.test(value),
);
