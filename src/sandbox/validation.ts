import { isIP } from 'node:net';
import { isCalendarDay } from './dates';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from './constants';
import { validationFailed } from './errors';
import { isObject, type JsonObject } from './http';
import { centsOf } from './money';

/**
 * Collects field errors (path → messages) so one 422 names every bad field, and reads typed values out of
 * untrusted JSON. Readers answer `undefined` for an absent field and `null` after recording an error.
 */
export class FieldCheck {
  readonly errors: Record<string, string[]> = {};

  fail(field: string, message: string): null {
    (this.errors[field] ??= []).push(message);
    return null;
  }

  has(field: string): boolean {
    return field in this.errors;
  }

  /** Throws the 422 when any error was recorded. */
  done(): void {
    if (Object.keys(this.errors).length > 0) throw validationFailed(this.errors);
  }

  /** A nested object; `required` records "is required" when absent. */
  object(parent: JsonObject, key: string, path: string, required = false): JsonObject | undefined | null {
    const v = parent[key];
    if (v === undefined || v === null) return required ? this.fail(path, 'is required') : undefined;
    return isObject(v) ? v : this.fail(path, 'must be an object');
  }

  /** A string; empty strings count as absent (forms often send them for blank fields). */
  string(parent: JsonObject, key: string, path: string, opts: { required?: boolean; max?: number } = {}) {
    const v = parent[key];
    if (v === undefined || v === null || v === '') {
      return opts.required ? this.fail(path, 'is required') : undefined;
    }
    if (typeof v !== 'string') return this.fail(path, 'must be a string');
    // A17: control characters are refused, as the module refuses them before sending.
    if (CONTROL_CHARACTERS.test(v)) return this.fail(path, CONTROL_CHARACTERS_PROBLEM);
    if (opts.max !== undefined && v.length > opts.max)
      return this.fail(path, `must be at most ${opts.max} characters`);
    return v;
  }

  /** An integer within bounds. */
  integer(
    parent: JsonObject,
    key: string,
    path: string,
    opts: { required?: boolean; min?: number; max?: number } = {},
  ) {
    const v = parent[key];
    if (v === undefined || v === null) return opts.required ? this.fail(path, 'is required') : undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return this.fail(path, 'must be an integer');
    if (opts.min !== undefined && v < opts.min) return this.fail(path, `must be at least ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) return this.fail(path, `must be at most ${opts.max}`);
    return v;
  }

  /** An amount: a JSON number with at most two decimal places (A1), as cents. */
  money(
    parent: JsonObject,
    key: string,
    path: string,
    opts: { required?: boolean; positive?: boolean } = {},
  ) {
    const v = parent[key];
    if (v === undefined || v === null) return opts.required ? this.fail(path, 'is required') : undefined;
    const cents = centsOf(v);
    if (cents === null) return this.fail(path, 'must be a number with at most two decimal places');
    if (cents < 0) return this.fail(path, 'must not be negative');
    if (opts.positive && cents === 0) return this.fail(path, 'must be greater than zero');
    return cents;
  }

  /** An absolute http(s) URL. */
  url(parent: JsonObject, key: string, path: string, required = false) {
    const v = this.string(parent, key, path, { required, max: 2048 });
    if (typeof v !== 'string') return v;
    return isHttpUrl(v) ? v : this.fail(path, 'must be an absolute http(s) URL');
  }

  /** A calendar day `YYYY-MM-DD` (a real date). */
  day(parent: JsonObject, key: string, path: string, required = false) {
    const v = parent[key];
    if (v === undefined || v === null || v === '')
      return required ? this.fail(path, 'is required') : undefined;
    return isCalendarDay(v) ? v : this.fail(path, 'must be a real date written YYYY-MM-DD');
  }

  /** An IP address. */
  ip(parent: JsonObject, key: string, path: string) {
    const v = this.string(parent, key, path, { max: 64 });
    if (typeof v !== 'string') return v;
    return isIP(v) ? v : this.fail(path, 'must be an IPv4 or IPv6 address');
  }
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A plausible e-mail address (one @, a dot in the domain, no spaces). */
export function isEmail(value: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) && value.length <= 254;
}
