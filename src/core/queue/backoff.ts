/**
 * Capped exponential backoff between attempts: `min(maxDelayMs, initialDelayMs * factor^(n-1))`, less up to `jitter`
 * (0 to 1) of it at random. Defaults: 10 s, 30 min, 2, 0.5 (docs/shipping.md).
 */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  jitter: number;
}

/** Delay after failed attempt `attempt` (1-based); jittered so rows failing together in an outage come back apart. */
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

/** Capped doubling without jitter: `base`, `2·base`, `4·base`… up to `max` (the inbox and status-change delivery). */
export function doublingDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return retryDelayMs(attempt, { initialDelayMs: baseMs, maxDelayMs: maxMs, factor: 2, jitter: 0 });
}
