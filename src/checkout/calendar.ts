// Due dates are calendar days in the store's zone (A2): at 22:00 in São Paulo it is already tomorrow in UTC.

/** Building an `Intl.DateTimeFormat` costs more than formatting with it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    // Throws for an unknown zone before anything is cached.
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    // Bounded against a caller passing arbitrary zones.
    if (formatters.size >= 64) formatters.clear();
    formatters.set(timeZone, format);
  }
  return format;
}

/** The last answer per zone and minute: every checkout asks, `formatToParts` is slow. */
const lastDays = new Map<string, { minute: number; day: string }>();

export function todayIn(timeZone: string, now: Date): string {
  // Zones are offset by whole minutes, so the date only turns on a minute boundary.
  const minute = Math.floor(now.getTime() / 60_000);
  const last = lastDays.get(timeZone);
  if (last && last.minute === minute) return last.day;
  const parts = formatterFor(timeZone).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = `${get('year')}-${get('month')}-${get('day')}`;
  if (lastDays.size >= 64) lastDays.clear();
  lastDays.set(timeZone, { minute, day });
  return day;
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** `true` for a real calendar day written `YYYY-MM-DD`. */
export { isCalendarDay } from '../gateway/dto/validators';

/** A card is valid through the last day of its expiry month (`MM/YY`). */
export function isCardExpiryCurrent(expiry: string, today: string): boolean {
  const m = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(expiry);
  if (!m) return false;
  const expires = (2000 + Number(m[2])) * 12 + Number(m[1]);
  const [y, mo] = today.split('-').map(Number);
  return expires >= y * 12 + mo;
}
