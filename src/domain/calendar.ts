import { LRUCache } from 'lru-cache';

// Calendar days (`YYYY-MM-DD`) in an IANA time zone: at 22:00 in São Paulo it is already tomorrow in UTC.

/** Per zone: its formatter (costly to build) and its last day (`formatToParts` is slow; callers ask often). */
const zones = new LRUCache<string, { format: Intl.DateTimeFormat; minute: number; day: string }>({ max: 64 });
const DAY = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;

export function todayIn(timeZone: string, now: Date): string {
  // Zones are offset by whole minutes, so the date only turns on a minute boundary.
  const minute = Math.floor(now.getTime() / 60_000);
  let zone = zones.get(timeZone);
  if (zone?.minute === minute) return zone.day;
  if (!zone) {
    // Throws for an unknown zone before anything is cached; bounded against a caller passing arbitrary zones.
    const format = new Intl.DateTimeFormat('en-US', { timeZone, ...DAY });
    zones.set(timeZone, (zone = { format, minute: -1, day: '' }));
  }
  const parts = zone.format.formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  zone.minute = minute;
  return (zone.day = `${get('year')}-${get('month')}-${get('day')}`);
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Per zone: a formatter of wall-clock parts, to find a zone's offset at an instant. */
const clocks = new LRUCache<string, Intl.DateTimeFormat>({ max: 64 });

/** Minutes `timeZone` is ahead of UTC at `at` (São Paulo: -180). */
function offsetMinutes(timeZone: string, at: number): number {
  let clock = clocks.get(timeZone);
  if (!clock) {
    const parts = { ...DAY, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
    clocks.set(timeZone, (clock = new Intl.DateTimeFormat('en-US', { timeZone, ...parts })));
  }
  const wall = Object.fromEntries(clock.formatToParts(at).map((p) => [p.type, Number(p.value)]));
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  return Math.round((asUtc - Math.floor(at / 60_000) * 60_000) / 60_000);
}

/** The instant `day` (`YYYY-MM-DD`) ends in `timeZone`: the next day's midnight there. */
export function dayEndIn(day: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  const midnightUtc = Date.UTC(y, m - 1, d + 1);
  // Twice: the offset at the guessed instant may differ from the one at the answer across a clock change.
  let at = midnightUtc - offsetMinutes(timeZone, midnightUtc) * 60_000;
  at = midnightUtc - offsetMinutes(timeZone, at) * 60_000;
  return new Date(at);
}
