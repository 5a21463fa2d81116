/**
 * Dates as the service writes them (A2): `YYYY-MM-DD HH:MM:SS` in the service's local time (its time zone, by
 * default America/Sao_Paulo: `SandboxOptions.timeZone`), calendar days as `YYYY-MM-DD`, and ISO 8601 with the local
 * offset where the legacy shape uses it.
 */

/** The service's time zone unless `SandboxOptions.timeZone` says otherwise (A2). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** One formatter per zone (costly to build); a sandbox uses one zone, a test run a few. */
const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    const parts = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit' } as const;
    const clock = { minute: '2-digit', second: '2-digit', hourCycle: 'h23' } as const;
    // Throws for an unknown zone, before anything is kept.
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, ...parts, ...clock });
    formats.set(zone, format);
  }
  return format;
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.trim() === '') return false;
  try {
    formatIn(zone);
    return true;
  } catch {
    return false;
  }
}

interface LocalParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

function localParts(at: Date, zone: string): LocalParts {
  const out: Record<string, string> = {};
  for (const p of formatIn(zone).formatToParts(at)) out[p.type] = p.value;
  return {
    year: out.year,
    month: out.month,
    day: out.day,
    hour: out.hour,
    minute: out.minute,
    second: out.second,
  };
}

/** `2026-11-21 10:00:00` in `zone`'s local time. */
export function localDateTime(at: Date, zone: string): string {
  const p = localParts(at, zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** `2026-11-21`, the calendar day of `at` in `zone`. */
export function localDay(at: Date, zone: string): string {
  const p = localParts(at, zone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `2026-11-21T10:00:00-03:00` (São Paulo). */
export function localIso(at: Date, zone: string): string {
  const p = localParts(at, zone);
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
