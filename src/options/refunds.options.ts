import { int, MINUTE, resolveNumbers, type Numbers } from '../domain/option-fields';

/** How refunds whose answer was lost are settled (docs/refunds.md); every field has a production default. */
export interface RefundsOptions {
  /** First read-back of an unknown refund by the worker after this long (default 2000 ms); doubles each time. */
  recheckMs?: number;
  /** Longest wait between two read-backs (default 300000 ms: 5 min). */
  maxRecheckMs?: number;
  /** How long after its timeout a lost refund request could still land (default 5000 ms). */
  lateMarginMs?: number;
  /** An unknown refund still not settled after this long raises a `refund_unresolved` alert (default 900000: 15 min). */
  unresolvedAlertMs?: number;
  /** A keyless refund repeating one of the same amount within this window is refused (409; default 10 min). */
  repeatWindowMs?: number;
  /** How often the worker looks for refunds due for a read-back (default 5000 ms). */
  pollIntervalMs?: number;
}

/** The options with their defaults, and whether the settlement worker starts (the module's `workers`). */
export type ResolvedRefundsOptions = Required<RefundsOptions> & { autoStartWorker: boolean };

const REFUNDS = {
  recheckMs: int(0, 2000),
  maxRecheckMs: int(0, 5 * MINUTE),
  lateMarginMs: int(0, 5000),
  unresolvedAlertMs: int(0, 15 * MINUTE),
  repeatWindowMs: int(0, 10 * MINUTE),
  pollIntervalMs: int(0, 5000),
} as const satisfies Numbers<RefundsOptions>;

/** `refunds` with its defaults; the settlement worker starts with the module's `workers`. */
export function resolveRefundsOptions(options: RefundsOptions = {}, workers = true): ResolvedRefundsOptions {
  return { ...resolveNumbers('refunds', REFUNDS, options), autoStartWorker: workers };
}
