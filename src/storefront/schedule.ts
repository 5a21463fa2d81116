import { HttpError } from './source.js';
import type { PaymentView } from './types.js';

/**
 * When to ask the store again. A PIX or a card is asked at 1 s, 1.5 s, then every 2 s: with the
 * route's answer in well under a second, a payment the store has learned shows within 3 s. A bank slip clears in
 * days and an expired code rarely changes, so those are asked every 10 s; a page the shopper does not see, every
 * 15 s (coming back to it asks at once). A settled payment is not asked again.
 */
export const FAST_MS = [1000, 1500, 2000] as const;
export const SLOW_MS = 10_000;
export const HIDDEN_MS = 15_000;
/** After failures: 2 s, 4 s, 8 s... up to 30 s. */
const ERROR_BASE_MS = 2000;
const ERROR_MAX_MS = 30_000;

/** Failed polls in a row before the shopper is told the store cannot be reached. */
export const FAILURES_SHOWN = 3;

/** States after which nothing changes by itself. */
export const SETTLED = ['paid', 'canceled', 'failed', 'refunded'] as const;

export function isSettled(view: PaymentView): boolean {
  return (SETTLED as readonly string[]).includes(view.state);
}

/** The wait before the next poll after an answer (`round` counts the answers since the last change); null: stop. */
export function nextPoll(view: PaymentView, round: number, hidden: boolean): number | null {
  if (isSettled(view)) return null;
  const fast = view.state === 'processing' || (view.method !== 'billet' && view.state === 'waiting');
  const wait = fast ? FAST_MS[Math.min(round, FAST_MS.length - 1)] : SLOW_MS;
  return hidden ? Math.max(wait, HIDDEN_MS) : wait;
}

/** The wait after a failed poll (`failures` in a row, from 1); a 429's `Retry-After` wins. */
export function retryDelay(err: unknown, failures: number): number {
  if (err instanceof HttpError && err.retryAfterMs !== null) return Math.max(err.retryAfterMs, ERROR_BASE_MS);
  return Math.min(ERROR_BASE_MS * 2 ** (failures - 1), ERROR_MAX_MS);
}
