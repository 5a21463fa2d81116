/** Money in the browser: integer cents from the view's exact decimal strings; never a float. */

const DECIMAL = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/** `"123.4"` → 12340; null when the text is not a non-negative amount with at most two decimals. */
export function parseCents(text: string | null | undefined): number | null {
  const match = DECIMAL.exec((text ?? '').trim());
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : null;
}

/** 12340 → `"123.40"`, the exact decimal `Intl.NumberFormat` formats without a float in between. */
export function decimalOf(cents: number): `${number}` {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}` as `${number}`;
}

/** `R$ 123,40` (pt-BR) or `R$123.40` (en). */
export function formatMoney(cents: number, currency: string, locale: string): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
  // A decimal string is formatted exactly (Intl.NumberFormat v3); the Node-side type check has no ES2023 lib, whose
  // overload takes it, hence the cast.
  return format.format(decimalOf(cents) as unknown as number);
}

/** The total in `count` installments: each the integer share, the first also taking the remainder. */
export function installmentsOf(totalCents: number, count: number): { first: number; rest: number } {
  const rest = Math.floor(totalCents / count);
  return { first: rest + (totalCents - rest * count), rest };
}
