/**
 * The sandbox's own money handling (it must not share the client's, or it would agree with the client's
 * mistakes): integer cents inside, decimal numbers or strings on the wire, conversions through strings only.
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Cents of a JSON number with at most two decimal places, or null when the value is not such a number
 * (`10.555`, `NaN`, `1e21`, a string).
 */
export function centsOf(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const m = DECIMAL.exec(String(value));
  if (!m) return null;
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) return null;
  return m[1] === '-' && cents !== 0 ? -cents : cents;
}

/** `1050` → `"10.50"`. */
export function toDecimalString(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** `1050` → `10.5`, a JSON number made from the exact decimal text. */
export function toDecimalNumber(cents: number): number {
  return Number(toDecimalString(cents));
}

/** `123456` → `"R$ 1.234,56"` (pt-BR: dots group thousands, comma before cents). */
export function formatBrl(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}R$ ${units},${String(abs % 100).padStart(2, '0')}`;
}

/** `basisPoints` of `cents`, rounded half up to a whole cent (integer arithmetic). */
export function shareOf(cents: number, basisPoints: number): number {
  return Math.floor((cents * basisPoints + 5000) / 10000);
}
