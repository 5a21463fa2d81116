import { HOUR, int, MINUTE, resolveNumbers, type Numbers } from '../options/fields';

/** Thresholds of `InvoicePaymentsHealthIndicator` (`forRoot({ health })`); a check past one reports `down`. */
export interface HealthOptions {
  /** With no call to the service for this long, a check makes one (a one-item list), kept as long. Default 30000. */
  probeIntervalMs?: number;
  /** Most webhook deliveries waiting in the inbox. Default 1000. */
  maxInboxBacklog?: number;
  /** Longest a delivery may wait in the inbox. Default 600000 (10 min). */
  maxInboxAgeMs?: number;
  /** Most dead letters (inbox and tracking outbox); `null` (the default) reports them without going down. */
  maxDeadLetters?: number | null;
  /** Longest a tracking code may wait to be posted. Default 3600000 (1 h). */
  maxTrackingLagMs?: number;
  /** Longest an applied status change may wait for the host's port to take it. Default 600000 (10 min). */
  maxPortDelayMs?: number;
}

export type ResolvedHealthOptions = Required<HealthOptions>;

const HEALTH = {
  probeIntervalMs: int(1, 30_000),
  maxInboxBacklog: int(1, 1000),
  maxInboxAgeMs: int(1, 10 * MINUTE),
  maxTrackingLagMs: int(1, HOUR),
  maxPortDelayMs: int(1, 10 * MINUTE),
} as const satisfies Numbers<HealthOptions>;

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveHealthOptions(options: HealthOptions = {}): ResolvedHealthOptions {
  const dead = options.maxDeadLetters ?? null;
  if (dead !== null && (!Number.isSafeInteger(dead) || dead < 0)) {
    throw new Error('health.maxDeadLetters: must be an integer >= 0, or null');
  }
  return { ...resolveNumbers('health', HEALTH, options), maxDeadLetters: dead };
}
