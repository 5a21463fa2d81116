/** What one round did. */
export interface ReconciliationRound {
  /** The lease was held by this instance (otherwise nothing was done). */
  leader: boolean;
  /** Invoices looked up at the service. */
  checked: number;
  /** Status changes applied (webhooks had missed them). */
  applied: number;
  /** Due records found final or past their window: taken off the schedule without asking the service. */
  closed: number;
  /** Lookups that failed (the service unreachable); checked again sooner. */
  errors: number;
}

/** What one sweep of the whole account did. */
export interface SweepResult {
  /** Pages read from the service. */
  pages: number;
  /** Invoices listed. */
  seen: number;
  /** Listed invoices that belong to a local record. */
  matched: number;
  /** Status changes the sweep applied (webhooks had missed them). */
  applied: number;
  /** Set when the sweep stopped early; the next one starts over. */
  error: string | null;
}
