import { GatewayResponseError } from './errors';
import { Cents, ImplausibleAmountError, MoneyFormatError, serviceAmountToCents } from './money';

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : null;
}

/** A string, or a finite number's text; else (and `""`) `null`. NUL becomes U+FFFD: PostgreSQL cannot store it. */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value.replaceAll('\u0000', '\uFFFD');
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** An integer, or one written as a string; else `null`. */
export function asInt(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return null;
}

export function asBool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** The `YYYY-MM-DD` day of `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`. */
export function asDay(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T].*)?$/.exec(value.trim());
  return m ? m[1] : null;
}

/** `"************1111"` → `"1111"`. */
export function lastFour(value: unknown): string | null {
  const text = asText(value);
  if (!text) return null;
  const m = /(\d{4})$/.exec(text.trim());
  return m ? m[1] : null;
}

/** Deepest JSON nesting read from outside. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests deeper than `max`; iterative, so a hostile body cannot overflow the call stack. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  let visited = 0;
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() as number;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return true;
    if (++visited > 1_000_000) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Strict reading (identifiers, status, money): a malformed field is a `GatewayResponseError` naming it. */
export class PayloadReader {
  constructor(readonly operation: string) {}

  fail(path: string, problem: string, implausibleAmount = false): never {
    throw new GatewayResponseError(
      { operation: this.operation, sent: true },
      `unreadable ${path}: ${problem}`,
      implausibleAmount,
    );
  }

  record(value: unknown, path: string): JsonRecord {
    return asRecord(value) ?? this.fail(path, 'not an object');
  }

  requiredText(value: unknown, path: string): string {
    const text = asText(value);
    if (text === null || text.trim() === '') this.fail(path, 'missing');
    return text;
  }

  /** Cents; absent or `""` → `null`; anything not exactly cents, negative or absurd fails. */
  money(value: unknown, path: string): Cents | null {
    if (value === null || value === undefined || value === '') return null;
    if (typeof value !== 'number' && typeof value !== 'string') this.fail(path, 'not an amount');
    try {
      return serviceAmountToCents(value);
    } catch (err) {
      if (err instanceof MoneyFormatError)
        this.fail(path, err.message, err instanceof ImplausibleAmountError);
      throw err;
    }
  }
}
