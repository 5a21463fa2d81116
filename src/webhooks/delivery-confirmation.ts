import { DataSource } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import type { ConfirmedStatus } from '../core/ports';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { InboxRows, message } from './inbox-rows';
import { PacedLookups } from './paced-lookups';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { WebhookInboxEntry } from './webhook-inbox.entity';

/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
export const NO_RECORD_YET = 'no invoice record yet';

/** What {@link DeliveryConfirmation.admit} made of a delivery. */
export type Admission = 'recorded' | 'unrecorded' | 'handled';

/** Invoices whose latest applied confirmation is remembered (a number and a time each). */
const MAX_CONFIRMED_INVOICES = 10_000;

/**
 * A delivery's invoice as the service reports it now: the body is a trigger, the service the truth. An invoice is
 * looked up at most once per `webhooks.lookupWindowMs` and at most `webhooks.lookupsPerSecond` lookups start a
 * second ({@link PacedLookups}): deliveries that come meanwhile wait for the next lookup, which answers them all.
 * Deliveries for invoices this store does not know cost about one lookup per invoice (a budget a window), one
 * lookup serves every delivery of an invoice waiting at the time, and nothing is held open while the service is asked.
 */
export class DeliveryConfirmation {
  /** The lookups, paced; what waits for the next one of each invoice (the intake reads it). */
  readonly paced: PacedLookups;
  /** When the latest lookup that was then applied started, per invoice (bounded; oldest forgotten first). */
  private readonly confirmedAt = new Map<string, { at: number; recordId: string; status: ConfirmedStatus }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly gateway: GatewayClient,
    private readonly options: ResolvedWebhooksOptions,
    private readonly rows: InboxRows,
  ) {
    const find = (gatewayId: string) => this.gateway.findInvoiceById(gatewayId);
    this.paced = new PacedLookups(find, options.lookupWindowMs, options.lookupsPerSecond);
  }

  /**
   * The invoice as the service reports it now (profile `lookup.byId`), or `null` after scheduling a retry: the
   * service unreachable, or not (yet) knowing the invoice, is retried with backoff for `unknownInvoiceWindowMs`,
   * then dead-lettered with an alert. Nothing is held open while the service is asked.
   */
  async confirm(
    entry: WebhookInboxEntry,
    gatewayId: string,
    local: boolean,
  ): Promise<{ invoice: Invoice; startedAt: Date } | null> {
    const startedAt = new Date();
    let problem: string;
    try {
      const invoice = await this.lookupShared(gatewayId);
      if (invoice) {
        // Known there, no record here when admitted: remembered before anything else is awaited, so a delivery of
        // it admitted meanwhile waits for a record instead of asking again (admit looks for a record first).
        if (!local) this.rows.unknown.remember(gatewayId, 'no-record');
        return { invoice, startedAt };
      }
      problem = `the service does not know invoice ${gatewayId}`;
      if (!local) {
        // Neither this store nor the service knows it: nothing will ever apply. Dead at once, remembered.
        this.rows.unknown.remember(gatewayId, 'unknown');
        await this.rows.deadLetterUnknown(entry, problem);
        return null;
      }
    } catch (err) {
      problem = `could not confirm invoice ${gatewayId} with the service: ${message(err)}`;
    }
    await this.notConfirmed(entry, problem);
    return null;
  }

  /**
   * An entry whose invoice could not be confirmed (the service unreachable, or not knowing an invoice this store
   * has): retried with backoff for `unknownInvoiceWindowMs`, then dead-lettered with an alert. One whose lookup was
   * only put off ({@link PacedLookups}) is taken again when the lookup may start, without counting as a failure.
   */
  async notConfirmed(entry: WebhookInboxEntry, problem: string): Promise<void> {
    const until = entry.gatewayId === null ? null : this.paced.deferredUntil(entry.gatewayId);
    if (until !== null) {
      await this.rows.finish(entry, { lastError: problem.slice(0, 2000), nextAttemptAt: until });
      this.paced.waits(entry.gatewayId as string, entry.id, until);
      return;
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
      await this.rows.deadLetter(entry, null, `${problem} (for ${waited} ms)`);
    } else {
      await this.rows.retryLater(entry, problem);
    }
  }

  /**
   * Whether a delivery naming `gatewayId` may be confirmed now: `recorded`, the invoice has a record here;
   * `unrecorded`, it has none but may be looked up (within the window's budget of such lookups); `handled`, the
   * entry was dealt with here: dead-lettered (the service said it does not know it), or postponed without asking the
   * service (budget spent, or the service already confirmed it and no record exists yet). So deliveries for invoices
   * this store does not know cost about one lookup per invoice, whatever their number.
   */
  async admit(entry: WebhookInboxEntry, gatewayId: string): Promise<Admission> {
    const repo = this.dataSource.getRepository(InvoiceRecord);
    const where = [{ gatewayId }, ...(entry.referrer ? [{ referrer: entry.referrer }] : [])];
    if (await repo.exists({ where })) {
      this.rows.unknown.forget(gatewayId);
      return 'recorded';
    }
    const verdict = this.rows.unknown.verdictOf(gatewayId);
    if (verdict === 'unknown') {
      await this.rows.deadLetterUnknown(entry, `the service does not know invoice ${gatewayId}`);
      return 'handled';
    }
    const waited = Date.now() - entry.receivedAt.getTime();
    if (verdict === 'no-record' || entry.lastError?.startsWith(NO_RECORD_YET)) {
      if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
        await this.rows.deadLetter(
          entry,
          null,
          `no invoice record for invoice ${gatewayId} after ${waited} ms`,
        );
      } else {
        await this.rows.retryLater(entry, `${NO_RECORD_YET} for invoice ${gatewayId}`);
      }
      return 'handled';
    }
    const wait = this.rows.unknown.spendLookup();
    if (wait !== null) {
      await this.rows.finish(entry, {
        lastError: `lookups of invoices without a record are limited; invoice ${gatewayId} waits`,
        nextAttemptAt: new Date(Date.now() + Math.max(wait, 1)),
      });
      return 'handled';
    }
    return 'unrecorded';
  }

  /**
   * One lookup per invoice at a time, whatever number of deliveries wait for it, paced ({@link PacedLookups}): an
   * invoice whose lookups are spent rejects (the caller hands its entries to {@link notConfirmed}, which takes them
   * again when a lookup may start).
   */
  lookupShared(gatewayId: string): Promise<Invoice | null> {
    return this.paced.lookup(gatewayId);
  }

  /**
   * Whether deliveries of `gatewayId` received up to `receivedBefore` are answered already: a lookup that started
   * after they arrived was applied, so what the service said then is at least as new as what they report.
   */
  answered(gatewayId: string, receivedBefore: Date): boolean {
    return this.answeredRecord(gatewayId, receivedBefore) !== null;
  }

  /** The record the answering lookup was applied to, when {@link answered} (else `null`). */
  answeredRecord(gatewayId: string, receivedBefore: Date): string | null {
    return this.answerOf(gatewayId, receivedBefore)?.recordId ?? null;
  }

  /**
   * The lookup that answered deliveries of `gatewayId` received up to `receivedBefore` (see {@link answered}): the
   * record it was applied to and what the service said; `null` when none is remembered in this process.
   */
  answerOf(gatewayId: string, receivedBefore: Date): { recordId: string; status: ConfirmedStatus } | null {
    const confirmed = this.confirmedAt.get(gatewayId);
    return confirmed !== undefined && receivedBefore.getTime() < confirmed.at ? confirmed : null;
  }

  /**
   * Remembers that a lookup of `gatewayId` started at `startedAt`, answering `invoice`, was applied to `recordId`
   * (see {@link answered}).
   */
  applied(gatewayId: string, startedAt: Date, recordId: string, invoice: Invoice): void {
    const previous = this.confirmedAt.get(gatewayId);
    if (previous !== undefined && previous.at >= startedAt.getTime()) return;
    this.confirmedAt.delete(gatewayId);
    if (this.confirmedAt.size >= MAX_CONFIRMED_INVOICES) {
      this.confirmedAt.delete(this.confirmedAt.keys().next().value as string);
    }
    const { paidCents, grossCents } = invoice.amounts;
    const status = { code: invoice.status.code, paidCents, grossCents };
    this.confirmedAt.set(gatewayId, { at: startedAt.getTime(), recordId, status });
  }
}
