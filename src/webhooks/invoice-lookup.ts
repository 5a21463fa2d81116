import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { messageOf } from '../core/events';
import type { ConfirmedStatus } from '../core/ports';
import { CallCeiling } from '../core/queue/poller';
import { CLOCK, type Clock } from '../domain/clock';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import type { WebhookInboxEntry } from './webhook-inbox';

/** Lookups of one invoice that may start back to back: its own life (paid, refunded moments apart) is not slowed. */
export const LOOKUP_BURST = 3;
/** Rows the intake stores for one invoice before its next lookup starts; later deliveries join the newest. */
export const MAX_ROWS_PER_LOOKUP = 50;
/** Invoices remembered at once (least recently used dropped first: a forgotten invoice starts a fresh burst). */
const MAX_INVOICES = 10_000;
/** Joins a delivery tries before it is stored (each finding its entry claimed meanwhile). */
const JOIN_TRIES = 3;
/** How long what a lookup found of an invoice without a record here holds. */
const VERDICT_MS = 3_600_000;

/**
 * What storing a delivery did. `duplicate`: a retry or copy of a stored delivery (same dedupe key), answered from its
 * row; `joined`: a new delivery added to an entry of its invoice waiting for its next lookup (which answers both);
 * `problem`: why a dead one is.
 */
export type StoredDelivery = Pick<WebhookInboxEntry, 'id' | 'state' | 'gatewayId'> & {
  duplicate: boolean;
  joined: boolean;
  problem: string | null;
};

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
  next(invoice: string, noRecord = false): 'now' | { at: Date } {
    const pace = this.paceOf(invoice);
    const due = this.dueAt(invoice);
    if (due) return { at: due };
    if (noRecord && !this.withoutRecord.take()) return { at: this.after(this.withoutRecord) };
    if (!this.perSecond.take()) return { at: this.after(this.perSecond) };
    pace.tokens -= 1;
    pace.rows = 0;
    pace.newest = null;
    return 'now';
  }

  /** When a delivery of `invoice` stored now should be due: `null` when a lookup could start at once. */
  dueAt(invoice: string): Date | null {
    const { tokens } = this.paceOf(invoice);
    if (tokens >= 1) return null;
    return new Date(this.clock.now() + Math.max(1, Math.ceil((1 - tokens) * this.options.lookupWindowMs)));
  }

  /**
   * Joins a delivery of `invoice` to the entry later deliveries join ({@link joinable}), else stores it, due when the
   * invoice's next lookup may start. A row others will join is written before the next delivery is placed, and a
   * join that finds its entry claimed looks again, so a burst joins one entry instead of storing a row each.
   */
  async place(invoice: string, how: Placing): Promise<StoredDelivery> {
    const pace = this.paceOf(invoice);
    for (let tries = 0; tries < JOIN_TRIES; tries++) {
      while (pace.writing) await pace.writing;
      const id = this.joinable(invoice);
      if (id === null) break;
      if (await how.join(id)) {
        return { id, state: 'pending', gatewayId: invoice, problem: null, duplicate: false, joined: true };
      }
      // Claimed or finished meanwhile: no later delivery tries it again.
      if (pace.waiting?.entryId === id) pace.waiting = null;
      if (pace.newest === id) pace.newest = null;
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
    this.paceOf(invoice).waiting = { entryId, until: at.getTime() };
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
    const written: Promise<void> = write.then(noop, noop).then(() => {
      if (pace.writing === written) pace.writing = null;
    });
    pace.writing = written;
    return write;
  }

  /** The invoice's pace, its lookups refilled up to now. */
  private paceOf(invoice: string): InvoicePace {
    const now = this.clock.now();
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

/**
 * What confirming deliveries of an invoice came to. `confirmed`: the invoice as the service reports it now.
 * `put-off`: its lookup waits for its turn. `retry`: the service could not answer (or, for an invoice a record holds,
 * does not know it yet). `unknown`: the service does not know an invoice no record here holds. `wait-for-record`: the
 * service knows it, and no record here holds it yet. Only the processor writes what follows from it.
 */
export type Confirmation =
  | { kind: 'confirmed'; invoice: Invoice; startedAt: Date }
  | { kind: 'put-off'; at: Date }
  | { kind: 'retry'; problem: string }
  | { kind: 'unknown'; problem: string }
  | { kind: 'wait-for-record' };

/** The lookup that answered the deliveries of an invoice that arrived before it started, and was applied. */
type Answer = { at: number; recordId: string; status: ConfirmedStatus };

type Verdict = 'unknown' | 'no-record';

/**
 * A delivery's invoice as the service reports it now, when the pacer lets it be looked up. A delivery is a trigger:
 * a lookup that starts after it arrived answers it, so waiting for the invoice's next turn loses nothing.
 */
@Injectable()
export class DeliveryConfirmation {
  private readonly answers = new LRUCache<string, Answer>({ max: MAX_INVOICES });
  /** What a lookup of an invoice no record holds found: unknown at the service, or known there only. */
  private readonly verdicts = new LRUCache<string, { verdict: Verdict; until: number }>({
    max: MAX_INVOICES,
  });

  constructor(
    private readonly gateway: GatewayClient,
    private readonly pacer: LookupPacer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The invoice now, one lookup for all `entries` (`local`: a record holds its number or referrer). */
  async confirm(entries: WebhookInboxEntry[], gatewayId: string, local: boolean): Promise<Confirmation> {
    const unknown = { kind: 'unknown', problem: `the service does not know invoice ${gatewayId}` } as const;
    if (!local) {
      const verdict = this.verdictOf(gatewayId);
      if (verdict === 'unknown') return unknown;
      if (verdict === 'no-record' || entries[0].waitingFor === 'record') return { kind: 'wait-for-record' };
    }
    const turn = this.pacer.next(gatewayId, !local);
    if (turn !== 'now') return { kind: 'put-off', at: turn.at };
    const startedAt = this.clock.date();
    let invoice: Invoice | null;
    try {
      invoice = await this.gateway.findInvoiceById(gatewayId);
    } catch (err) {
      const problem = `could not confirm invoice ${gatewayId} with the service: ${messageOf(err)}`;
      return { kind: 'retry', problem };
    }
    if (!local) {
      // Before any await, so a delivery of it admitted meanwhile waits for a record instead of asking again.
      const until = this.clock.now() + VERDICT_MS;
      this.verdicts.set(gatewayId, { verdict: invoice ? 'no-record' : 'unknown', until });
    }
    if (invoice) return { kind: 'confirmed', invoice, startedAt };
    return local ? { kind: 'retry', problem: unknown.problem } : unknown;
  }

  /** The lookup that answered deliveries of `gatewayId` received up to `receivedBefore`, remembered in this process. */
  answerOf(gatewayId: string, receivedBefore: Date): Answer | null {
    const answer = this.answers.get(gatewayId);
    return answer !== undefined && receivedBefore.getTime() < answer.at ? answer : null;
  }

  /** A lookup that started at `startedAt` was applied to record `recordId`: it answers deliveries that came before. */
  applied(gatewayId: string, startedAt: Date, recordId: string, invoice: Invoice): void {
    const known = this.answers.get(gatewayId);
    if (known !== undefined && known.at >= startedAt.getTime()) return;
    const { paidCents, grossCents } = invoice.amounts;
    const status = { code: invoice.status.code, paidCents, grossCents };
    this.answers.set(gatewayId, { at: startedAt.getTime(), recordId, status });
  }

  /** A record holds the invoice now: what was found of it without one no longer holds. */
  forget(gatewayId: string): void {
    this.verdicts.delete(gatewayId);
  }

  private verdictOf(gatewayId: string): Verdict | null {
    const judged = this.verdicts.get(gatewayId);
    return judged !== undefined && judged.until > this.clock.now() ? judged.verdict : null;
  }
}

function noop(): void {}
