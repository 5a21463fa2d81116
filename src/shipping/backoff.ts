import type { BackoffOptions } from './types';

/**
 * Delay before the attempt that follows failed attempt number `attempt` (1-based): capped exponential growth with
 * jitter, so many rows failing together during an outage do not all come back at the same instant.
 * `random` returns a number in [0, 1); it is a parameter so the function stays pure and testable.
 */
export function retryDelayMs(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const steps = Math.max(0, Math.floor(attempt) - 1);
  const exponential = options.initialDelayMs * Math.pow(options.factor, steps);
  // Math.min also tames Infinity once the exponent grows large.
  const capped = Math.min(options.maxDelayMs, exponential);
  return Math.max(0, Math.round(capped * (1 - options.jitter * random())));
}
