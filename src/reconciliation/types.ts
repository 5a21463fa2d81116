/**
 * Options of the reconciliation of open invoices (`InvoicePaymentsModule.forRoot({ reconciliation: {...} })`): every
 * invoice not in a final state is looked up by id at the service on a schedule that backs off with its age, so a
 * payment whose webhook never arrived (the store was down, the service gave up) still reaches the order. On by
 * default; every field has a default that suits production.
 */
export interface OpenReconciliationOptions {
  /** Look for due invoices every this many ms. Default 10000; 0 turns the reconciliation off. */
  intervalMs?: number;
  /** Invoices looked at per round. Default 50. */
  batchSize?: number;
  /** Ceiling of lookups at the service per minute, whatever the number of open invoices. Default 60. */
  maxCallsPerMinute?: number;
  /** How long the instance running the reconciliation holds it; a crashed instance's hold lapses after. Default 60000. */
  leaseMs?: number;
  /** Checks at these ages of the invoice, in ms. Default 1 min, 5 min, 15 min, 1 h. */
  stepsMs?: number[];
  /** After the steps, hourly until the invoice is this old (ms). Default 86400000 (1 day); then daily. */
  hourlyUntilMs?: number;
  /** Checked daily until its due date plus this margin (ms). Default 259200000 (3 days). */
  dueDateMarginMs?: number;
  /** Checked at least this long after creation, due date or not (card, awaiting refund). Default 30 days. */
  minimumWindowMs?: number;
  /**
   * At start, invoices created within this many ms are checked at once instead of at their next step: webhooks
   * may have been missed while the store was down. Default 259200000 (3 days); 0 turns it off.
   */
  catchUpOnStartMs?: number;
}

/** {@link OpenReconciliationOptions} with every default filled in. */
export type ResolvedOpenReconciliationOptions = Required<OpenReconciliationOptions>;

/** What one round did. */
export interface ReconciliationRound {
  /** This instance held the lease (otherwise nothing was done). */
  leader: boolean;
  checked: number;
  /** Status changes applied (webhooks had missed them). */
  applied: number;
  /** Due records found final or past their window: taken off the schedule without a lookup. */
  closed: number;
  errors: number;
}

/** What one sweep of the whole account did. */
export interface SweepResult {
  pages: number;
  seen: number;
  /** Listed invoices that belong to a local record. */
  matched: number;
  applied: number;
  /** Set when the sweep stopped early; the next one starts over. */
  error: string | null;
}
