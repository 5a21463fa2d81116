import { int, MINUTE, resolveNumbers, type Numbers } from '../domain/option-fields';

/** How applied status changes are delivered to the host's port (`notifications`). */
export interface StatusDispatchOptions {
  /** Look for undelivered changes (after a crash, or another instance's) every this many ms. Default 5000; 0 off. */
  pollIntervalMs?: number;
  /** Delay before the first retry after the host's port threw. Doubles each attempt. Default 1000. */
  retryBaseDelayMs?: number;
  /** Ceiling of the retry delay. Default 300000 (5 minutes). */
  retryMaxDelayMs?: number;
  /** How long an instance holds the change it delivers; a longer port call may be repeated. Default 60000. */
  leaseMs?: number;
}

/** The options, and whether the dispatcher looks for leftovers at start (the module's `workers`). */
export interface StatusDispatchSettings extends StatusDispatchOptions {
  pollOnStart?: boolean;
}

const NOTIFICATIONS = {
  pollIntervalMs: int(0, 5000),
  retryBaseDelayMs: int(1, 1000),
  retryMaxDelayMs: int(1, 5 * MINUTE),
  leaseMs: int(1, MINUTE),
} as const satisfies Numbers<StatusDispatchOptions>;

/** `notifications` with its defaults; without `workers`, no polling (changes applied here are still delivered). */
export function resolveNotificationsOptions(options: StatusDispatchSettings = {}, workers = true) {
  const numbers = resolveNumbers('notifications', NOTIFICATIONS, options);
  if (!workers) return { ...numbers, pollIntervalMs: 0, pollOnStart: false };
  return { ...numbers, pollOnStart: options.pollOnStart ?? true };
}
