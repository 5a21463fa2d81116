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
