import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '../domain/clock';
import { CallCeiling } from '../core/queue/call-ceiling';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import type { StoredDelivery, Turn } from './webhook-inbox.types';

/** Lookups of one invoice that may start back to back: its own life (paid, refunded moments apart) is not slowed. */
export const LOOKUP_BURST = 3;
/** Rows the intake stores for one invoice before its next lookup starts; later deliveries join the newest. */
export const MAX_ROWS_PER_LOOKUP = 50;
/** Invoices remembered at once (least recently used dropped first: a forgotten invoice starts a fresh burst). */
const MAX_INVOICES = 10_000;
/** Joins a delivery tries before it is stored (each finding its entry claimed meanwhile). */
const JOIN_TRIES = 3;

/** What the pacer knows of one invoice. */
interface InvoicePace {
  /** Lookups the invoice may start now (fractions refill at one per `lookupWindowMs`), counted at `at`. */
  tokens: number;
  at: number;
  /** Rows stored since its last lookup started, and the newest of them, which later deliveries may join. */
  rows: number;
  newest: string | null;
  /** The entry waiting for the invoice's next turn, which deliveries join instead of adding rows. */
  waiting: { entryId: string; until: number } | null;
  /** The write of the entry later deliveries join, while in flight: the next delivery waits for it, then joins it. */
  writing: Promise<void> | null;
}

/** How the intake joins a delivery to a stored entry, or stores it (due at `dueAt`; `null`: now). */
interface Placing {
  join(entryId: string): Promise<boolean>;
  store(dueAt: Date | null): Promise<StoredDelivery>;
}

/**
 * The one owner of "when may this invoice be looked up next": after {@link LOOKUP_BURST} lookups in a row, one per
 * invoice per `lookupWindowMs`, at most `lookupsPerSecond` in all, and lookups of invoices no record holds within
 * `inbox.unknownLookupsPerWindow`. Per process. It also says which waiting entry a new delivery joins, so a flood
 * naming one invoice adds a few rows a lookup window. It writes nothing: the intake stores, the processor moves entries.
 */
@Injectable()
export class LookupPacer {
  private readonly invoices = new LRUCache<string, InvoicePace>({ max: MAX_INVOICES });
  private readonly perSecond: CallCeiling;
  private readonly withoutRecord: CallCeiling;

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const now = () => clock.now();
    this.perSecond = new CallCeiling(options.lookupsPerSecond, now, 1000);
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.withoutRecord = new CallCeiling(unknownLookupsPerWindow, now, unknownLookupWindowMs);
  }

  /**
   * When `invoice` may be looked up: `'now'` takes the lookup (the caller makes it at once), else the time its turn
   * comes. `noRecord`: no record here holds the invoice, so its lookup also counts against that smaller budget.
   */
  next(invoice: string, noRecord = false): Turn {
    const now = this.clock.now();
    const pace = this.paceOf(invoice, now);
    const invoiceWait = waitOf(pace.tokens, this.options.lookupWindowMs);
    if (invoiceWait > 0) return { at: new Date(now + invoiceWait) };
    if (noRecord && !this.withoutRecord.take()) return { at: this.after(this.withoutRecord) };
    if (!this.perSecond.take()) return { at: this.after(this.perSecond) };
    pace.tokens -= 1;
    pace.rows = 0;
    pace.newest = null;
    return 'now';
  }

  /** When a delivery of `invoice` stored now should be due: `null` when a lookup could start at once. */
  dueAt(invoice: string): Date | null {
    const now = this.clock.now();
    const wait = waitOf(this.paceOf(invoice, now).tokens, this.options.lookupWindowMs);
    return wait > 0 ? new Date(now + wait) : null;
  }

  /**
   * Joins a delivery of `invoice` to the entry later deliveries join ({@link joinable}), else stores it, due when the
   * invoice's next lookup may start. A row others will join is written before the next delivery is placed, and a
   * join that finds its entry claimed looks again, so a burst joins one entry instead of storing a row each.
   */
  async place(invoice: string, how: Placing): Promise<StoredDelivery> {
    const pace = this.paceOf(invoice, this.clock.now());
    for (let tries = 0; tries < JOIN_TRIES; tries++) {
      while (pace.writing) await pace.writing;
      const entryId = this.joinable(invoice);
      if (entryId === null) break;
      if (await how.join(entryId)) {
        return {
          id: entryId,
          state: 'pending',
          gatewayId: invoice,
          problem: null,
          duplicate: false,
          joined: true,
        };
      }
      // Claimed or finished meanwhile: no later delivery tries it again.
      if (pace.waiting?.entryId === entryId) pace.waiting = null;
      if (pace.newest === entryId) pace.newest = null;
    }
    return this.storing(pace, invoice, how.store);
  }

  /**
   * The entry a delivery of `invoice` joins instead of being stored: the one waiting for the invoice's next turn, or,
   * past {@link MAX_ROWS_PER_LOOKUP} rows since its last lookup started, the newest; else `null`.
   */
  joinable(invoice: string): string | null {
    const pace = this.invoices.get(invoice);
    if (!pace) return null;
    const { waiting } = pace;
    if (waiting && waiting.until + this.options.lookupWindowMs > this.clock.now()) return waiting.entryId;
    pace.waiting = null;
    return pace.rows >= MAX_ROWS_PER_LOOKUP ? pace.newest : null;
  }

  /** Entry `entryId` was put off until `at`, its invoice's turn: later deliveries join it. */
  waiting(invoice: string, entryId: string, at: Date): void {
    this.paceOf(invoice, this.clock.now()).waiting = { entryId, until: at.getTime() };
  }

  /** Stores a delivery of `invoice`, counted; one that later deliveries will join is awaited by the next placed. */
  private storing(pace: InvoicePace, invoice: string, store: Placing['store']): Promise<StoredDelivery> {
    const dueAt = this.dueAt(invoice);
    const joinedLater = dueAt !== null || pace.rows >= MAX_ROWS_PER_LOOKUP;
    pace.rows += 1;
    const write = store(dueAt).then((stored) => {
      if (stored.duplicate || stored.state !== 'pending') {
        pace.rows = Math.max(0, pace.rows - 1);
        return stored;
      }
      pace.newest = stored.id;
      if (dueAt) pace.waiting = { entryId: stored.id, until: dueAt.getTime() };
      return stored;
    });
    if (!joinedLater) return write;
    const written: Promise<void> = write.then(
      () => this.written(pace, written),
      () => this.written(pace, written),
    );
    pace.writing = written;
    return write;
  }

  private written(pace: InvoicePace, write: Promise<void>): void {
    if (pace.writing === write) pace.writing = null;
  }

  /** The invoice's pace, its lookups refilled up to `now`. */
  private paceOf(invoice: string, now: number): InvoicePace {
    let pace = this.invoices.get(invoice);
    if (!pace) {
      pace = { tokens: LOOKUP_BURST, at: now, rows: 0, newest: null, waiting: null, writing: null };
      this.invoices.set(invoice, pace);
    }
    const refilled = (now - pace.at) / this.options.lookupWindowMs;
    pace.tokens = Math.min(LOOKUP_BURST, pace.tokens + refilled);
    pace.at = now;
    return pace;
  }

  private after(ceiling: CallCeiling): Date {
    return new Date(this.clock.now() + Math.max(ceiling.msUntilNextWindow(), 1));
  }
}

/** Ms until a whole lookup is available with `tokens` left, refilling one per `windowMs`. */
function waitOf(tokens: number, windowMs: number): number {
  return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) * windowMs));
}
