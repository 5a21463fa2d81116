import { HOUR, int, MINUTE, resolveNumbers, type NumberOptions } from '../domain/option-fields';

/** Injection token of the resolved `health` options. */
export const HEALTH_OPTIONS = Symbol('INVOICE_PAYMENTS_HEALTH_OPTIONS');

const HEALTH = {
  /** How often the module reads its queues and judges the service, in the background. Default 5000. */
  checkIntervalMs: int(10, 5_000, MINUTE),
  /** With no answer from the service for this long, the module asks it once (a one-item list). Default 15000. */
  probeIntervalMs: int(1, 15_000),
  /** How long that question may go unanswered before the service is reported not answering. Default 10000. */
  probeTimeoutMs: int(10, 10_000, MINUTE),
  /** Most webhook deliveries waiting in the inbox. Default 1000. */
  maxInboxBacklog: int(1, 1000),
  /** Longest a delivery may wait in the inbox. Default 600000 (10 min). */
  maxInboxAgeMs: int(1, 10 * MINUTE),
  /** Longest a tracking code may wait to be posted. Default 3600000 (1 h). */
  maxTrackingLagMs: int(1, HOUR),
  /** Longest an applied status change may wait for the host's port to take it. Default 600000 (10 min). */
  maxPortDelayMs: int(1, 10 * MINUTE),
} as const;

/**
 * Thresholds and timing of `InvoicePaymentsHealthIndicator` (`health` in the module's options); a check past a
 * threshold reports `down`. With the defaults, a service that hangs, refuses the credential or is down shows within
 * `checkIntervalMs + probeIntervalMs + probeTimeoutMs` (30 s).
 */
export interface HealthOptions extends NumberOptions<typeof HEALTH> {
  /** Most dead letters (inbox and tracking outbox); `null` (the default) reports them without going down. */
  maxDeadLetters?: number | null;
}

export type ResolvedHealthOptions = ReturnType<typeof resolveHealthOptions>;

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveHealthOptions(options: HealthOptions = {}) {
  const dead = options.maxDeadLetters ?? null;
  if (dead !== null && (!Number.isSafeInteger(dead) || dead < 0)) {
    throw new Error('health.maxDeadLetters: must be an integer >= 0, or null');
  }
  return { ...resolveNumbers('health', HEALTH, options), maxDeadLetters: dead };
}
