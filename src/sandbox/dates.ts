/**
 * Dates as the service writes them (A2): `YYYY-MM-DD HH:MM:SS` in America/Sao_Paulo local time, calendar days as
 * `YYYY-MM-DD`, and ISO 8601 with the local offset where the legacy shape uses it.
 */

const ZONE = 'America/Sao_Paulo';
const PARTS = new Intl.DateTimeFormat('en-CA', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

interface LocalParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

function localParts(at: Date): LocalParts {
  const out: Record<string, string> = {};
  for (const p of PARTS.formatToParts(at)) out[p.type] = p.value;
  return {
    year: out.year,
    month: out.month,
    day: out.day,
    hour: out.hour,
    minute: out.minute,
    second: out.second,
  };
}

/** `2026-11-21 10:00:00` in São Paulo time. */
export function localDateTime(at: Date): string {
  const p = localParts(at);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** `2026-11-21`, the São Paulo calendar day of `at`. */
export function localDay(at: Date): string {
  const p = localParts(at);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `2026-11-21T10:00:00-03:00`. */
export function localIso(at: Date): string {
  const p = localParts(at);
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  const offsetMin = Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const hh = String(Math.trunc(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${sign}${hh}:${mm}`;
}

/** True for a real calendar day written `YYYY-MM-DD` (`2026-02-30` is false). */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** `day` plus `n` calendar days. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (both `YYYY-MM-DD`). */
export function daysBetween(from: string, to: string): number {
  const ms = (s: string): number => {
    const [y, m, d] = s.split('-').map(Number);
    return Date.UTC(y, m - 1, d);
  };
  return Math.round((ms(to) - ms(from)) / 86_400_000);
}

/** `day` at midnight as a timestamp string `YYYY-MM-DD 00:00:00`. */
export function dayAsDateTime(day: string): string {
  return `${day} 00:00:00`;
}
