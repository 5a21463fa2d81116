import { int, MINUTE, resolveNumbers, type NumberOptions } from '../domain/option-fields';

/** Injection token of the resolved refund options. */
export const REFUNDS_OPTIONS = Symbol('INVOICE_PAYMENTS_REFUNDS_OPTIONS');

const REFUNDS = {
  /** First read-back of an unknown refund by the worker after this long (default 2000 ms); doubles each time. */
  recheckMs: int(0, 2000),
  /** Longest wait between two read-backs (default 300000 ms: 5 min). */
  maxRecheckMs: int(0, 5 * MINUTE),
  /** How long after its timeout a lost refund request could still land (default 5000 ms). */
  lateMarginMs: int(0, 5000),
  /** An unknown refund still not settled after this long raises a `refund_unresolved` alert (default 900000: 15 min). */
  unresolvedAlertMs: int(0, 15 * MINUTE),
  /** A keyless refund repeating one of the same amount within this window is refused (409; default 10 min). */
  repeatWindowMs: int(0, 10 * MINUTE),
  /** How often the worker looks for refunds due for a read-back (default 5000 ms). */
  pollIntervalMs: int(0, 5000),
} as const;

/** How refunds whose answer was lost are settled (docs/refunds.md); every field has a production default. */
export type RefundsOptions = NumberOptions<typeof REFUNDS>;

/** The options with their defaults, and whether the settlement worker starts (the module's `workers`). */
export type ResolvedRefundsOptions = ReturnType<typeof resolveRefundsOptions>;

export function resolveRefundsOptions(options: RefundsOptions = {}, workers = true) {
  return { ...resolveNumbers('refunds', REFUNDS, options), autoStartWorker: workers };
}
