import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import * as countries from 'i18n-iso-countries';
import { addDays } from '../../domain/text-and-days';
import { GatewayValidationError } from '../errors';

/** A real calendar day written `YYYY-MM-DD` (no `2025-02-30`). */
export function isCalendarDay(value: unknown): value is string {
  // A day that does not exist rolls over (`2025-02-30` → `2025-03-02`) and so comes back changed.
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && addDays(value, 0) === value;
}

/** A card's expiry, `MM/YY`. */
export const CARD_EXPIRY = /^(0[1-9]|1[0-2])\/(\d{2})$/;

/** A card is valid through the last day of its expiry month (`MM/YY`). */
export function isCardExpiryCurrent(expiry: string, today: string): boolean {
  const m = CARD_EXPIRY.exec(expiry);
  const [y, mo] = today.split('-').map(Number);
  return m !== null && (2000 + Number(m[2])) * 12 + Number(m[1]) >= y * 12 + mo;
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

/** CPF or CNPJ without punctuation, upper-cased (alphanumeric CNPJ); `''` when absent. */
export function normalizeDocument(value: unknown): string {
  return typeof value === 'string' ? value.replace(/[\s./-]/g, '').toUpperCase() : '';
}

export const isAlpha3Country = (v: unknown): boolean =>
  typeof v === 'string' && /^[A-Z]{3}$/.test(v) && countries.alpha3ToAlpha2(v) !== undefined;

/** Field path → what is wrong with it. */
export type FieldErrors = Record<string, string[]>;

export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** Reports problems by field path, never repeating the value (it could be a secret); `parent` holds the value. */
export type Rule = (
  value: unknown,
  path: string,
  fail: (path: string, message: string) => void,
  parent: Record<string, unknown>,
) => void;

/** `rule` accepts `value`: one truth for what the service takes, while the caller names the field. */
export function obeys(rule: Rule, value: unknown, parent: object = {}): boolean {
  let ok = true;
  rule(value, '', () => (ok = false), parent as Record<string, unknown>);
  return ok;
}

export const check =
  (message: string, test: (value: unknown) => boolean): Rule =>
  (v, p, fail) => {
    if (!test(v)) fail(p, message);
  };

export const integerFrom = (min: number, max: number): Rule =>
  check(
    `must be an integer from ${min} to ${max}`,
    (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max,
  );

/** The rules in order; the first that fails speaks for the field. */
export const all =
  (...rules: Rule[]): Rule =>
  (v, p, fail, parent) => {
    let failed = false;
    const failOnce = (path: string, message: string) => {
      failed = true;
      fail(path, message);
    };
    for (const rule of rules) {
      rule(v, p, failOnce, parent);
      if (failed) return;
    }
  };

/** Absent (`undefined` or `null`) is fine; otherwise `rules`. */
export const optional =
  (...rules: Rule[]): Rule =>
  (v, p, fail, parent) => {
    if (v !== undefined && v !== null) all(...rules)(v, p, fail, parent);
  };

export const required = (message: string, ...rules: Rule[]): Rule =>
  all(
    check(message, (v) => v !== undefined && v !== null),
    ...rules,
  );

export const when =
  (applies: (parent: Record<string, unknown>) => boolean, rule: Rule): Rule =>
  (v, p, fail, parent) => {
    if (applies(parent)) rule(v, p, fail, parent);
  };

const property = (path: string) =>
  path
    .split(/[.[\]]/)
    .filter(Boolean)
    .pop() ?? path;

export const isString: Rule = (v, p, fail) => {
  if (typeof v !== 'string') fail(p, `${property(p)} must be a string`);
};

/** An object whose fields follow `shape` (fields it does not name pass). */
export const object =
  (shape: Record<string, Rule>): Rule =>
  (v, p, fail) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      return fail(p, `nested property ${property(p)} must be either object or array`);
    }
    const o = v as Record<string, unknown>;
    for (const [key, rule] of Object.entries(shape)) rule(o[key], p ? `${p}.${key}` : key, fail, o);
  };

export const each =
  (rule: Rule): Rule =>
  (v, p, fail, parent) => {
    if (Array.isArray(v)) v.forEach((item, i) => rule(item, `${p}[${i}]`, fail, parent));
  };

/** The input itself, else `GatewayValidationError` (`sent: false`) naming every bad field; cross rules run last. */
export function validateInput<T>(
  shape: Record<string, Rule>,
  input: unknown,
  context: { operation: string; invoiceRef?: string },
  crossRules?: (value: T) => FieldErrors,
): T {
  const errors: FieldErrors = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    addFieldError(errors, 'params', 'must be an object');
  } else {
    object(shape)(input, '', (path, message) => addFieldError(errors, path, message), {});
    if (Object.keys(errors).length === 0 && crossRules) Object.assign(errors, crossRules(input as T));
  }
  if (Object.keys(errors).length === 0) return input as T;
  const summary = Object.entries(errors).map(([field, messages]) => `${field} ${messages.join('; ')}`);
  const detail = `invalid input: ${summary.join(', ')}; nothing was sent`;
  throw new GatewayValidationError({ ...context, sent: false }, detail, errors);
}
