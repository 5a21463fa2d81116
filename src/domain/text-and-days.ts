import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';

// The plain values a payment reads from outside and from the calendar: bounded text and calendar days.

// Text from outside: a string, bounded once trimmed, free of control characters. Those are refused, never stripped:
// PostgreSQL refuses NUL, and a silently changed value could no longer be found by the value the host holds.

/** C0 and C1 controls, unpaired surrogates, bidi controls and the line and paragraph separators. */
export const CONTROL_CHARACTERS = /[\p{Cc}\p{Cs}\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

export const CONTROL_CHARACTERS_PROBLEM =
  'must not contain control characters (NUL, line breaks, tabs, ESC, bidi overrides such as U+202E)';

export interface TextRule {
  /** UTF-16 code units (as the service counts them), after trimming. */
  max: number;
  required?: boolean;
  /** Named in the "too long" problem, so a store knows which option raises it (`checkout.textLimits.name`). */
  option?: string;
}

/** What is wrong with a value under `rule`, or `null`; `undefined`, `null` and blank count as absent. */
export function textProblem(value: unknown, rule: TextRule): string | null {
  if (value === undefined || value === null) return rule.required ? 'is required' : null;
  if (typeof value !== 'string') return 'must be a string';
  if (CONTROL_CHARACTERS.test(value)) return CONTROL_CHARACTERS_PROBLEM;
  const text = value.trim();
  if (text === '') return rule.required ? 'is required' : null;
  if (text.length > rule.max) {
    return `must be at most ${rule.max} characters${rule.option ? ` (${rule.option})` : ''}`;
  }
  return null;
}

/** The trimmed string, or `undefined` when absent, blank or wrong (the problem goes to `errors` under `field`). */
export function readText(
  errors: { add(field: string, problem: string): void },
  field: string,
  value: unknown,
  rule: TextRule,
): string | undefined {
  const problem = textProblem(value, rule);
  if (problem) {
    errors.add(field, problem);
    return undefined;
  }
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? undefined : text;
}

/** Record ids are 36 characters; order ids at most 128. */
const MAX_ID_LENGTH = 128;

/** What is wrong with an id from a route or a query, or `null`. */
export function idProblem(value: unknown): string | null {
  if (typeof value === 'string' && value !== value.trim()) return 'must not start or end with spaces';
  return textProblem(value, { max: MAX_ID_LENGTH, required: true });
}

/** Text kept only to be read (reasons, notes), cut to `max` with `marker` so its length never fails a write. */
export function clip(value: string, max: number, marker?: string): string;
export function clip(value: string | null | undefined, max: number, marker?: string): string | null;
export function clip(value: string | null | undefined, max: number, marker = ''): string | null {
  if (value === null || value === undefined) return null;
  return value.length > max ? `${value.slice(0, max)}${marker}` : value;
}

// Calendar days (`YYYY-MM-DD`) in an IANA time zone: at 22:00 in São Paulo it is already tomorrow in UTC.

/**
 * Whether `given` is the secret `expected`, in a time that says nothing about either: both are hashed first, so the
 * compared buffers always have one length.
 */
export function sameSecret(given: string, expected: string | Buffer): boolean {
  const want = typeof expected === 'string' ? secretDigest(expected) : expected;
  return timingSafeEqual(secretDigest(given), want);
}

/** The digest {@link sameSecret} compares; keep one of a fixed secret to compare against it many times. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

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

/** Whether `timeZone` is an IANA time zone this runtime knows (`America/Sao_Paulo`, `UTC`). */
export function isTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || timeZone.trim() === '') return false;
  try {
    // Any instant proves the zone: an unknown one throws.
    todayIn(timeZone, new Date(0));
    return true;
  } catch {
    return false;
  }
}

/**
 * The first due day the service accepts at `now`, for a store in `storeZone` and a service counting its days in
 * `serviceZone` (the wire profile's `timeZone`, A2): the store's today, or the service's when that is later (a store
 * west of São Paulo, in Manaus or Rio Branco, is still on yesterday for an hour or two after midnight there).
 */
export function firstDueDay(storeZone: string, serviceZone: string, now: Date): string {
  return laterDay(todayIn(storeZone, now), todayIn(serviceZone, now));
}

/** The later of two `YYYY-MM-DD` days (their text sorts as the days do). */
export function laterDay(a: string, b: string): string {
  return a > b ? a : b;
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
