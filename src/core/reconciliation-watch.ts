// Which records the reconciliation of open invoices watches, and when one comes back on its schedule, in the core so
// that the status path's one write can put a record back. The schedule itself (when the next lookup falls, when the
// window ends) is `nextCheckAt` in options/reconciliation.options.ts, which counts from `watchedFrom`.
import { statusIs } from '../domain/status-table';
import { NEVER, type InvoiceRecord } from '../persistence/invoice.entity';

/** Watched by the reconciliation: a status the table flags `watched` (or none yet), or a creation not settled. */
export function isWatched(record: Pick<InvoiceRecord, 'statusCode' | 'creationState'>): boolean {
  if (record.creationState === 'failed') return false;
  return record.statusCode === null || statusIs(record.statusCode, 'watched');
}

/** Taken off the schedule by the reconciliation (found final, or its window ended): never looked up again as is. */
export function isOffSchedule(record: Pick<InvoiceRecord, 'nextCheckAt'>): boolean {
  return record.nextCheckAt !== null && record.nextCheckAt.getTime() >= NEVER.getTime();
}

/**
 * The one put-back: due at the next round, its window counting from `now` (not from its creation), so a record put
 * back after its window ended is watched for a whole window again and not taken off at its first check.
 */
export function backOnSchedule(now: Date): Pick<InvoiceRecord, 'nextCheckAt' | 'watchedFrom'> {
  return { nextCheckAt: now, watchedFrom: now };
}

/**
 * What a write of `patch` onto `record` (as read) does to its schedule, written in the same statement: a record the
 * reconciliation no longer watches (off the schedule, or holding a status it does not watch) comes back when the
 * write applies a status it watches (a paid bank slip refunded: 7) or moves the due date (an overdue slip made
 * payable again). Nothing otherwise: a record on the schedule keeps it (its window follows its due date), and one
 * whose new status is not watched stays off. A patch that sets the schedule itself (a creation move) decides alone.
 */
export function scheduleAfterWrite(
  record: InvoiceRecord,
  patch: Partial<InvoiceRecord>,
  now: Date,
): Partial<InvoiceRecord> {
  if ('nextCheckAt' in patch || !isWatched({ ...record, ...patch })) return {};
  const unwatched = isOffSchedule(record) || !isWatched(record);
  const statusApplied = patch.statusCode !== undefined && patch.statusCode !== record.statusCode;
  const dueMoved = patch.dueDate !== undefined && patch.dueDate !== record.dueDate;
  return unwatched && (statusApplied || dueMoved) ? backOnSchedule(now) : {};
}
