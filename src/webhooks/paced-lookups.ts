import type { Invoice } from '../gateway/types';
import { LookupDeferred, LookupPace } from './lookup-pace';

/** Invoices tracked at most at once in each map (oldest forgotten first). */
const MAX_TRACKED = 10_000;

/**
 * The lookups deliveries make of their invoices, one at a time per invoice and no more often than the
 * {@link LookupPace} allows, and what waits for the next one: the inbox entry put off until it may start, which a
 * delivery arriving meanwhile joins instead of adding a row (the intake). Per process; every entry that waits is in
 * the database, so a crash loses nothing.
 */
export class PacedLookups {
  private readonly pace: LookupPace;
  private readonly inFlight = new Map<string, Promise<Invoice | null>>();
  /** Invoices whose lookup was put off, and until when. */
  private readonly deferred = new Map<string, number>();
  /** Per invoice, an entry due when its next lookup may start. */
  private readonly waiting = new Map<string, { entryId: string; until: number }>();

  constructor(
    private readonly find: (gatewayId: string) => Promise<Invoice | null>,
    windowMs: number,
    perSecond: number,
  ) {
    this.pace = new LookupPace(windowMs, perSecond);
  }

  /**
   * The invoice as the service reports it, one lookup per invoice at a time however many callers ask: an invoice
   * whose lookups are spent rejects with {@link LookupDeferred} (see {@link deferredUntil}); when this second's
   * lookups are spent, the lookup waits here for the next second (its entries stay claimed, nothing is written).
   */
  lookup(gatewayId: string): Promise<Invoice | null> {
    let pending = this.inFlight.get(gatewayId);
    if (!pending) {
      const first = this.pace.take(gatewayId);
      if (first.waitMs > 0 && first.scope === 'invoice') {
        const retryAt = Date.now() + first.waitMs;
        remember(this.deferred, gatewayId, retryAt);
        return Promise.reject(new LookupDeferred(gatewayId, new Date(retryAt)));
      }
      this.deferred.delete(gatewayId);
      pending = this.afterCeiling(gatewayId, first.waitMs)
        .then(() => this.find(gatewayId))
        .finally(() => this.inFlight.delete(gatewayId));
      this.inFlight.set(gatewayId, pending);
    }
    return pending;
  }

  /** When the put-off lookup of `gatewayId` may start, while that is still ahead; else `null`. */
  deferredUntil(gatewayId: string): Date | null {
    const until = this.deferred.get(gatewayId);
    return until !== undefined && until > Date.now() ? new Date(until) : null;
  }

  /**
   * When the next lookup of `gatewayId` may start, when that is later than now (its lookups are spent), else
   * `null`: the intake stores a delivery due then, so it waits without being claimed, and later ones join it.
   */
  nextLookupAt(gatewayId: string): Date | null {
    const wait = this.pace.peek(gatewayId);
    return wait > 0 ? new Date(Date.now() + wait) : null;
  }

  /** Remembers that entry `entryId` of `gatewayId` is due at `until` (see {@link waitingEntry}). */
  waits(gatewayId: string, entryId: string, until: Date): void {
    remember(this.waiting, gatewayId, { entryId, until: until.getTime() });
  }

  /**
   * An inbox entry of `gatewayId` due after now, when its next lookup may start, or `null`: a delivery of the
   * invoice arriving now is answered by that lookup, so the intake joins it to the entry instead of storing it.
   */
  waitingEntry(gatewayId: string): string | null {
    const waiting = this.waiting.get(gatewayId);
    if (!waiting) return null;
    if (waiting.until > Date.now()) return waiting.entryId;
    this.waiting.delete(gatewayId);
    return null;
  }

  /** Resolves once a lookup of `gatewayId` is taken from the pace, waiting out spent seconds (`waitMs` first). */
  private async afterCeiling(gatewayId: string, waitMs: number): Promise<void> {
    while (waitMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      ({ waitMs } = this.pace.take(gatewayId));
    }
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
