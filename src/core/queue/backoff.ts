/** Capped exponential backoff between attempts: `min(maxDelayMs, initialDelayMs * factor^(n-1))`, jittered. */
export interface BackoffOptions {
  /** Delay after the first failed attempt. Default 10 000 ms. */
  initialDelayMs: number;
  /** Upper bound of any delay. Default 30 min. */
  maxDelayMs: number;
  /** Growth per attempt. Default 2. */
  factor: number;
  /** Share of the delay taken off at random, 0 (none) to 1 (full jitter). Default 0.5. */
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
