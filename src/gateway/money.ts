/** Integer cents (always a safe integer); converted through decimal strings, never float arithmetic. */
export type Cents = number;

/** An amount not exactly representable in cents. */
export class MoneyFormatError extends Error {
  constructor(
    message: string,
    readonly input: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d{1,2}))?$/;
/** Signs before and after `R$` cancel out; thousands grouped by dots, or not at all. */
const BRL = /^(-?)\s*(?:R\$)?\s*(-?)\s*(\d{1,3}(?:\.\d{3})*(?:,\d{1,2})?|\d+(?:,\d{1,2})?)$/;

export function assertCents(value: unknown, field = 'amount'): asserts value is Cents {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new MoneyFormatError(`${field} must be an integer number of cents, got ${String(value)}`, value);
  }
}

/** `"10.5"`, `"-3"` to cents; more than two places is an error, never a rounding. */
export function decimalStringToCents(text: string): Cents {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new MoneyFormatError(`not a decimal amount with at most two places: "${text}"`, text);
  const [, sign, units, fraction = ''] = m;
  const cents = Number(units) * 100 + Number(fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) throw new MoneyFormatError(`amount out of range: "${text}"`, text);
  return sign === '-' && cents !== 0 ? -cents : cents;
}

/** A pt-BR amount (`"R$ 1.234,56"`, `"-R$ 10,00"`) to cents. */
export function brlStringToCents(text: string): Cents {
  const m = BRL.exec(text.replace(/\u00a0/g, ' ').trim());
  if (!m) throw new MoneyFormatError(`not a formatted BRL amount: "${text}"`, text);
  const [units, fraction = ''] = m[3].replace(/\./g, '').split(',');
  const cents = decimalStringToCents(`${units}.${fraction.padEnd(2, '0')}`);
  return m[1] !== m[2] && cents !== 0 ? -cents : cents;
}

/** A JSON number (through its shortest decimal text), a decimal string or a pt-BR currency string to cents. */
export function toCents(value: number | string): Cents {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new MoneyFormatError(`amount is not finite: ${value}`, value);
    const text = String(value);
    if (/e/i.test(text)) throw new MoneyFormatError(`amount out of range: ${text}`, value);
    return decimalStringToCents(text);
  }
  if (typeof value !== 'string') throw new MoneyFormatError(`not an amount: ${String(value)}`, value);
  const s = value.trim();
  // Only a comma or the currency sign marks pt-BR text. A bare "1.234" is a decimal with three places, rejected as
  // A1 says: reading it as 1234 reais would turn a malformed amount into a thousandfold one.
  if (s.includes(',') || s.includes('R$')) return brlStringToCents(s);
  return decimalStringToCents(s);
}

/** Major units as Medusa stores them (`"134.800000000"`) to cents; a fraction of a cent is an error. */
export function majorUnitsToCents(value: number | string): Cents {
  // A number's shortest text never ends in zeros: exactly `toCents`.
  if (typeof value === 'number') return toCents(value);
  const m = /^([+-]?\d+)(?:\.(\d{1,2})(\d*))?$/.exec(typeof value === 'string' ? value.trim() : '');
  if (!m) throw new MoneyFormatError(`not a decimal amount in major units: "${String(value)}"`, value);
  const [, units, cents, rest = ''] = m;
  if (/[^0]/.test(rest))
    throw new MoneyFormatError(`amount has a fraction of a cent: "${String(value)}"`, value);
  return decimalStringToCents(cents ? `${units}.${cents}` : units);
}

/** The largest amount believed from the service (the admin API's refund bound). */
export const MAX_SERVICE_AMOUNT_CENTS: Cents = 99_999_999_999;

/** An amount from the service that cannot be real: negative, or above {@link MAX_SERVICE_AMOUNT_CENTS}. */
export class ImplausibleAmountError extends MoneyFormatError {}

/** `toCents`, refusing a negative amount (it could let more be refunded than was paid) or an absurd one. */
export function serviceAmountToCents(value: number | string): Cents {
  const cents = toCents(value);
  if (cents < 0) throw new ImplausibleAmountError(`amount below zero: ${String(value)}`, value);
  if (cents > MAX_SERVICE_AMOUNT_CENTS) {
    throw new ImplausibleAmountError(
      `amount above ${MAX_SERVICE_AMOUNT_CENTS} cents: ${String(value)}`,
      value,
    );
  }
  return cents;
}

/** A decimal with more than two places (`0.0198`), or a JSON number so small its text has an exponent (`1e-7`). */
const FINER_THAN_CENTS = /^[+-]?\d+\.\d{3,}$|^-?\d(?:\.\d+)?e-\d+$/i;

/**
 * An amount from the service that is only shown, never decided on (A1: `net`, `fees`, `discount`, `shipping`). A
 * negative one is read: a flat fee above a small invoice leaves a negative `net`. One finer than a cent is `null`,
 * never rounded. Anything else is read as {@link serviceAmountToCents} reads it (beyond the bound either way: refused).
 */
export function serviceDisplayAmountToCents(value: number | string): Cents | null {
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (FINER_THAN_CENTS.test(text)) return null;
  const cents = toCents(value);
  if (Math.abs(cents) > MAX_SERVICE_AMOUNT_CENTS) {
    throw new ImplausibleAmountError(
      `amount beyond ${MAX_SERVICE_AMOUNT_CENTS} cents: ${String(value)}`,
      value,
    );
  }
  return cents;
}

/** `1050` → `"10.50"`. */
export function centsToDecimalString(cents: Cents): string {
  assertCents(cents);
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** `1050` → `10.5`, parsed from the exact decimal text. */
export function centsToWireNumber(cents: Cents): number {
  const text = centsToDecimalString(cents);
  const wire = Number(text);
  // Past 15 significant digits a double's shortest text may lose a cent: refused rather than sent wrong.
  if (String(wire) !== text.replace(/\.?0+$/, '')) {
    throw new MoneyFormatError(`amount too large to send exactly as a JSON number: ${text}`, cents);
  }
  return wire;
}

/** `123456` → `"R$ 1.234,56"`. */
export function formatBrl(cents: Cents): string {
  const [units, fraction] = centsToDecimalString(Math.abs(cents)).split('.');
  const grouped = units.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${cents < 0 ? '-' : ''}R$ ${grouped},${fraction}`;
}

export function sumCents(values: readonly Cents[]): Cents {
  let total = 0;
  for (const v of values) {
    assertCents(v);
    total += v;
  }
  assertCents(total, 'sum');
  return total;
}
