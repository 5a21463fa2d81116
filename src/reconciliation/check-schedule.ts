import { DAY, HOUR } from '../domain/option-fields';
import type { ResolvedOpenReconciliationOptions } from '../options/reconciliation.options';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/** `dueDate`: `YYYY-MM-DD` (service time zone), or `null`. */
type Schedulable = Pick<InvoiceRecord, 'createdAt' | 'dueDate'>;

/**
 * When an open invoice is next looked up: the next point of its age's schedule (the steps, hourly, then daily), the
 * last being its window's end (see {@link windowEnd}) so every invoice gets one look at it; `null` past the window.
 */
export function nextCheckAt(
  record: Schedulable,
  now: Date,
  options: ResolvedOpenReconciliationOptions,
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

/** The due day's end in São Paulo plus `dueDateMarginMs`, and at least `minimumWindowMs` after creation. */
export function windowEnd(record: Schedulable, options: ResolvedOpenReconciliationOptions): number {
  const minimum = record.createdAt.getTime() + options.minimumWindowMs;
  if (!record.dueDate || !/^\d{4}-\d{2}-\d{2}$/.test(record.dueDate)) return minimum;
  // The due day ends at midnight in the service's time zone (A2: America/Sao_Paulo, UTC-3 all year since 2019).
  const dueEnd = Date.parse(`${record.dueDate}T23:59:59.999-03:00`);
  return Number.isFinite(dueEnd) ? Math.max(minimum, dueEnd + options.dueDateMarginMs) : minimum;
}
