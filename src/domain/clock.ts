/**
 * Where module code reads the time. There is one clock so that a test can move time instead of sleeping: the root
 * module provides {@link systemClock} under {@link CLOCK}, and a test overrides that provider with a clock it moves.
 *
 * `now()` is epoch milliseconds, for due times, leases, windows and ages; `date()` is the same instant as a `Date`,
 * for columns and the wire. Durations measured for metrics (how long a call took) read the same clock.
 */
export interface Clock {
  now(): number;
  date(): Date;
}

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  date: () => new Date(),
};

/** The injection token of the module's one {@link Clock}. */
export const CLOCK = Symbol.for('nestjs-invoice-payments:clock');

/** A wait of `ms` told to a caller (`Retry-After`, "retry in N s"): whole seconds, at least one. */
export function secondsToWait(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
