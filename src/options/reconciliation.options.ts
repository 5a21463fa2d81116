import { DAY, HOUR, int, MINUTE, resolveNumbers, type Numbers } from '../domain/option-fields';

/** The reconciliation of open invoices (on by default; docs/webhooks.md); the defaults suit production. */
export interface OpenReconciliationOptions {
  /** Look for due invoices every this many ms. Default 10000; 0 turns the reconciliation off. */
  intervalMs?: number;
  /** Invoices looked at per round. Default 50. */
  batchSize?: number;
  /** Ceiling of lookups at the service per minute, whatever the number of open invoices. Default 60. */
  maxCallsPerMinute?: number;
  /** How long the instance running it holds it; a crashed instance's hold lapses after. Default 60000. */
  leaseMs?: number;
  /** Checks at these ages of the invoice, in ms. Default 1 min, 5 min, 15 min, 1 h. */
  stepsMs?: number[];
  /** After the steps, hourly until the invoice is this old (ms). Default 86400000 (1 day); then daily. */
  hourlyUntilMs?: number;
  /** Checked daily until its due date plus this margin (ms). Default 259200000 (3 days). */
  dueDateMarginMs?: number;
  /** Checked at least this long after creation, due date or not (card, awaiting refund). Default 30 days. */
  minimumWindowMs?: number;
  /** At start, invoices created within this many ms are checked at once. Default 259200000 (3 days); 0 off. */
  catchUpOnStartMs?: number;
}

/** {@link OpenReconciliationOptions} with every default filled in. */
export type ResolvedOpenReconciliationOptions = Required<OpenReconciliationOptions>;

const RECONCILIATION = {
  intervalMs: int(0, 10_000),
  batchSize: int(1, 50),
  maxCallsPerMinute: int(1, 60),
  leaseMs: int(1000, MINUTE),
  hourlyUntilMs: int(0, DAY),
  dueDateMarginMs: int(0, 3 * DAY),
  minimumWindowMs: int(0, 30 * DAY),
  catchUpOnStartMs: int(0, 3 * DAY),
} as const satisfies Numbers<OpenReconciliationOptions>;

/** Without `workers`, no round runs on its own. */
export function resolveReconciliationOptions(options: OpenReconciliationOptions = {}, workers = true) {
  const steps = options.stepsMs ?? [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR];
  if (!Array.isArray(steps) || steps.some((s) => !Number.isSafeInteger(s) || s <= 0)) {
    throw new Error('reconciliation.stepsMs must be a list of positive integers (ms)');
  }
  const numbers = resolveNumbers('reconciliation', RECONCILIATION, options);
  return { ...numbers, stepsMs: [...steps].sort((a, b) => a - b), ...(workers ? {} : { intervalMs: 0 }) };
}
