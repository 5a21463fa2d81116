import { DAY, HOUR, int, MINUTE, resolveNumbers, type NumberOptions } from '../domain/option-fields';
import { dayEndIn } from '../domain/text-and-days';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/** Injection token of the resolved reconciliation options. */
export const RECONCILIATION_OPTIONS = Symbol('INVOICE_PAYMENTS_RECONCILIATION_OPTIONS');

const RECONCILIATION = {
  /** Look for due invoices every this many ms. Default 10000; 0 turns the reconciliation off. */
  intervalMs: int(0, 10_000),
  /** Invoices looked at per round. Default 50. */
  batchSize: int(1, 50),
  /** Ceiling of lookups at the service per minute, whatever the number of open invoices. Default 60. */
  maxCallsPerMinute: int(1, 60),
  /** How long the instance running it holds it; a crashed instance's hold lapses after. Default 60000. */
  leaseMs: int(1000, MINUTE),
  /** After the steps, hourly until the invoice is this old (ms). Default 86400000 (1 day); then daily. */
  hourlyUntilMs: int(0, DAY),
  /** Checked daily until its due date plus this margin (ms). Default 259200000 (3 days). */
  dueDateMarginMs: int(0, 3 * DAY),
  /** Checked at least this long after creation, due date or not (card, awaiting refund). Default 30 days. */
  minimumWindowMs: int(0, 30 * DAY),
  /** At start, invoices created within this many ms are checked at once. Default 259200000 (3 days); 0 off. */
  catchUpOnStartMs: int(0, 3 * DAY),
} as const;

/** The reconciliation of open invoices (on by default; docs/webhooks.md); the defaults suit production. */
export interface OpenReconciliationOptions extends NumberOptions<typeof RECONCILIATION> {
  /** Checks at these ages of the invoice, in ms. Default 1 min, 5 min, 15 min, 1 h. */
  stepsMs?: number[];
}

/** {@link OpenReconciliationOptions} with every default filled in. */
export type ResolvedOpenReconciliationOptions = Required<OpenReconciliationOptions>;

/** Without `workers`, no round runs on its own. */
export function resolveReconciliationOptions(
  options: OpenReconciliationOptions = {},
  workers = true,
): ResolvedOpenReconciliationOptions {
  const steps = options.stepsMs ?? [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR];
  if (!Array.isArray(steps) || steps.some((s) => !Number.isSafeInteger(s) || s <= 0)) {
    throw new Error('reconciliation.stepsMs must be a list of positive integers (ms)');
  }
  const numbers = resolveNumbers('reconciliation', RECONCILIATION, options);
  return { ...numbers, stepsMs: [...steps].sort((a, b) => a - b), ...(workers ? {} : { intervalMs: 0 }) };
}

/**
 * `dueDate`: `YYYY-MM-DD` (a day of the service's time zone), or `null`. `watchedFrom`: when the record was put back
 * on the schedule (absent or `null`: never, its window counts from its creation).
 */
type Schedulable = Pick<InvoiceRecord, 'createdAt' | 'dueDate'> & Partial<Pick<InvoiceRecord, 'watchedFrom'>>;

/** Where the record's window starts: when it was last put back on the schedule, else its creation. */
export function watchStart(record: Schedulable): number {
  return (record.watchedFrom ?? record.createdAt).getTime();
}

/**
 * When an open invoice is next looked up: the next point of its age's schedule (the steps, hourly, then daily), the
 * last being its window's end (see {@link windowEnd}) so every invoice gets one look at it; `null` past the window.
 * The age counts from {@link watchStart}: a record put back on the schedule is checked as a new one from then.
 * `serviceZone`: where the service counts its days (the wire profile's `timeZone`, A2).
 */
export function nextCheckAt(
  record: Schedulable,
  now: Date,
  options: ResolvedOpenReconciliationOptions,
  serviceZone: string,
): Date | null {
  const created = watchStart(record);
  const end = windowEnd(record, options, serviceZone);
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

/**
 * The due day's end in `serviceZone` (midnight there, whatever its offset that day) plus `dueDateMarginMs`, and at
 * least `minimumWindowMs` after the window's start ({@link watchStart}: creation, or the put-back).
 */
export function windowEnd(
  record: Schedulable,
  options: ResolvedOpenReconciliationOptions,
  serviceZone: string,
): number {
  const minimum = watchStart(record) + options.minimumWindowMs;
  if (!record.dueDate || !/^\d{4}-\d{2}-\d{2}$/.test(record.dueDate)) return minimum;
  const dueEnd = dayEndIn(record.dueDate, serviceZone).getTime();
  return Number.isFinite(dueEnd) ? Math.max(minimum, dueEnd + options.dueDateMarginMs) : minimum;
}
