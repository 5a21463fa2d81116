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
