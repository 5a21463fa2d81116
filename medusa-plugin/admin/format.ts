// Amounts and dates as Medusa's admin shows them on the same pages.

/** Medusa's language code (`ptBR`, `en`, `zhCN`) as a BCP 47 tag (`pt-BR`) for `Intl`. */
export function localeTag(language: string | undefined): string {
  const match = /^([a-z]{2,3})([A-Z]{2})$/.exec(language ?? '');
  return match ? `${match[1]}-${match[2]}` : language || 'en';
}

/**
 * Integer cents as Medusa's order page shows the order's totals (its `getLocaleAmount`: the browser's locale, the
 * currency's narrow symbol), so the widget's amounts read like the totals beside it. The amount goes to `Intl` as
 * decimal text, which it formats exactly, never through a float.
 */
export function money(cents: number | null, currency: string): string {
  if (cents === null) return '—';
  const digits = String(Math.abs(cents)).padStart(3, '0');
  const decimal = `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  const format = new Intl.NumberFormat([], {
    style: 'currency',
    currencyDisplay: 'narrowSymbol',
    currency,
  });
  // `format` takes a decimal string as an exact number (Intl.NumberFormat v3); TypeScript's ES2020 types omit it.
  return format.format(decimal as unknown as number);
}

/** A calendar day (`YYYY-MM-DD`) in the admin's language (`2 de dez. de 2026`), the day as written whatever the zone. */
export function calendarDate(day: string, tag: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return day;
  const utc = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(utc);
}

/** An instant (ISO 8601) in the admin's language and the browser's time zone, as Medusa shows dates with a time. */
export function dateTime(iso: string, tag: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' }).format(at);
}
