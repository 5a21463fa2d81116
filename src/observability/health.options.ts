/**
 * Thresholds of {@link InvoicePaymentsHealthIndicator} (`InvoicePaymentsModule.forRoot({ health: {...} })`). Every
 * field has a default; a check past its threshold reports the module `down`.
 */
export interface HealthOptions {
  /**
   * When the module made no call to the service for this long, a check asks the service once (a one-item invoice
   * list) and the answer is kept for as long: never a call per check. Default 30000 (ms).
   */
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

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveHealthOptions(options: HealthOptions = {}): ResolvedHealthOptions {
  const positive = (name: Exclude<keyof HealthOptions, 'maxDeadLetters'>, fallback: number): number => {
    const value = options[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`health.${name}: must be an integer >= 1`);
    return value;
  };
  const dead = options.maxDeadLetters ?? null;
  if (dead !== null && (!Number.isSafeInteger(dead) || dead < 0)) {
    throw new Error('health.maxDeadLetters: must be an integer >= 0, or null');
  }
  return {
    probeIntervalMs: positive('probeIntervalMs', 30_000),
    maxInboxBacklog: positive('maxInboxBacklog', 1000),
    maxInboxAgeMs: positive('maxInboxAgeMs', 600_000),
    maxDeadLetters: dead,
    maxTrackingLagMs: positive('maxTrackingLagMs', 3_600_000),
    maxPortDelayMs: positive('maxPortDelayMs', 600_000),
  };
}
