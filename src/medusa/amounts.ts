import { centsToWireNumber, majorUnitsToCents, MoneyFormatError, type Cents } from '../gateway/money';
import type { MedusaBigNumberInput } from './types';

/**
 * Medusa's amount (major units, `BigNumberInput`) to integer cents, exactly: a big number is read through its full
 * decimal text (`raw.value`, `toFixed()`), never through float arithmetic; a fraction of a cent is refused.
 */
export function medusaAmountToCents(
  amount: MedusaBigNumberInput | null | undefined,
  field = 'amount',
): Cents {
  const text = decimalTextOf(amount);
  if (text === null) throw new MoneyFormatError(`${field}: not an amount: ${describe(amount)}`, amount);
  return majorUnitsToCents(text);
}

/** Cents to the major-unit number Medusa takes (`1348` → `13.48`), from the exact decimal text. */
export function centsToMedusaAmount(cents: Cents): number {
  return centsToWireNumber(cents);
}

function decimalTextOf(amount: unknown): string | null {
  if (typeof amount === 'number' || typeof amount === 'string') return String(amount);
  if (typeof amount !== 'object' || amount === null) return null;
  const value = amount as {
    raw?: { value?: unknown };
    bigNumber?: { toFixed?: () => string };
    value?: unknown;
    toFixed?: (digits?: number) => string;
    numeric?: unknown;
  };
  // Medusa's BigNumber: the raw value keeps every digit; `numeric` is a float and only the last resort.
  if (value.raw && (typeof value.raw.value === 'string' || typeof value.raw.value === 'number')) {
    return String(value.raw.value);
  }
  if (value.bigNumber && typeof value.bigNumber.toFixed === 'function') return value.bigNumber.toFixed();
  if (typeof value.value === 'string' || typeof value.value === 'number') return String(value.value);
  if (typeof value.toFixed === 'function') return value.toFixed();
  if (typeof value.numeric === 'number') return String(value.numeric);
  return null;
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
