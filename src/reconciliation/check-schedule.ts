import type { OpenReconciliationOptions, ResolvedOpenReconciliationOptions } from './types';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** `next_check_at` of a record that is off the schedule (final, or past its window): sorts after any real time. */
export const NEVER = new Date('9999-12-31T00:00:00.000Z');

/** The defaults of {@link ResolvedOpenReconciliationOptions}. */
export const DEFAULT_RECONCILIATION: ResolvedOpenReconciliationOptions = {
  intervalMs: 10_000,
  batchSize: 50,
  maxCallsPerMinute: 60,
  leaseMs: 60_000,
  stepsMs: [60_000, 300_000, 900_000, HOUR],
  hourlyUntilMs: DAY,
  dueDateMarginMs: 3 * DAY,
  minimumWindowMs: 30 * DAY,
  catchUpOnStartMs: 3 * DAY,
};

/** What the schedule needs of a record. */
export interface Schedulable {
  createdAt: Date;
  /** `YYYY-MM-DD` (service time zone), or `null`. */
  dueDate: string | null;
}

/**
 * When an open invoice is next looked up: the first point after `now` of its age's schedule (the steps, then hourly
 * until `hourlyUntilMs`, then daily), or `null` once past its window (due date end in São Paulo plus
 * `dueDateMarginMs`, and at least `minimumWindowMs` after creation). The last point is the window's end itself, so
 * every invoice gets one look at it. Pure.
 */
export function nextCheckAt(
  record: Schedulable,
  now: Date,
  options: Pick<
    ResolvedOpenReconciliationOptions,
    'stepsMs' | 'hourlyUntilMs' | 'dueDateMarginMs' | 'minimumWindowMs'
  >,
): Date | null {
  const created = record.createdAt.getTime();
  const end = windowEnd(record, options);
  const age = now.getTime() - created;
  if (now.getTime() >= end) return null;
  let offset: number | undefined = options.stepsMs.find((s) => s > age);
  if (offset === undefined) {
    const last = options.stepsMs.at(-1) ?? 0;
    if (age < options.hourlyUntilMs) {
      offset = last + (Math.floor((age - last) / HOUR) + 1) * HOUR;
    } else {
      const base = Math.max(options.hourlyUntilMs, last);
      offset = base + (Math.floor((age - base) / DAY) + 1) * DAY;
    }
  }
  return new Date(Math.min(created + offset, end));
}

/** The instant after which an open invoice is no longer looked up on its own. */
export function windowEnd(
  record: Schedulable,
  options: Pick<ResolvedOpenReconciliationOptions, 'dueDateMarginMs' | 'minimumWindowMs'>,
): number {
  const minimum = record.createdAt.getTime() + options.minimumWindowMs;
  if (!record.dueDate || !/^\d{4}-\d{2}-\d{2}$/.test(record.dueDate)) return minimum;
  // The due day ends at midnight in the service's time zone (A2: America/Sao_Paulo, UTC-3 all year since 2019).
  const dueEnd = Date.parse(`${record.dueDate}T23:59:59.999-03:00`);
  return Number.isFinite(dueEnd) ? Math.max(minimum, dueEnd + options.dueDateMarginMs) : minimum;
}

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveReconciliationOptions(
  options: OpenReconciliationOptions = {},
): ResolvedOpenReconciliationOptions {
  const d = DEFAULT_RECONCILIATION;
  const int = (
    name: keyof ResolvedOpenReconciliationOptions,
    value: unknown,
    fallback: number,
    min: number,
  ) => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
      throw new Error(`reconciliation.${name}: must be an integer >= ${min}`);
    }
    return v;
  };
  const steps = options.stepsMs ?? d.stepsMs;
  if (!Array.isArray(steps) || steps.some((s) => !Number.isSafeInteger(s) || s <= 0)) {
    throw new Error('reconciliation.stepsMs: must be a list of positive integers (ms)');
  }
  return {
    intervalMs: int('intervalMs', options.intervalMs, d.intervalMs, 0),
    batchSize: int('batchSize', options.batchSize, d.batchSize, 1),
    maxCallsPerMinute: int('maxCallsPerMinute', options.maxCallsPerMinute, d.maxCallsPerMinute, 1),
    leaseMs: int('leaseMs', options.leaseMs, d.leaseMs, 1000),
    stepsMs: [...steps].sort((a, b) => a - b),
    hourlyUntilMs: int('hourlyUntilMs', options.hourlyUntilMs, d.hourlyUntilMs, 0),
    dueDateMarginMs: int('dueDateMarginMs', options.dueDateMarginMs, d.dueDateMarginMs, 0),
    minimumWindowMs: int('minimumWindowMs', options.minimumWindowMs, d.minimumWindowMs, 0),
    catchUpOnStartMs: int('catchUpOnStartMs', options.catchUpOnStartMs, d.catchUpOnStartMs, 0),
  };
}
