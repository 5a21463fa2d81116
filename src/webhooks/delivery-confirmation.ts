import { Logger } from '@nestjs/common';
import type { ConfirmedStatus } from '../core/host-webhooks.port';
import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { CallCeiling } from '../reconciliation/call-ceiling';
import { PacedLookups } from './paced-lookups';
import type { ResolvedWebhooksOptions } from './types';
import type { WebhookInboxEntry } from './webhook-inbox.entity';
import { message, type WebhookInboxService } from './webhook-inbox.service';

/** How the wait for a record of an invoice the service knows is told in `last_error` (no lookup while it waits). */
export const NO_RECORD_YET = 'no invoice record yet';

/** Invoices remembered at most at once in each map (oldest forgotten first). */
const MAX_REMEMBERED = 10_000;
const VERDICT_MS = 3_600_000;

/** What a lookup of an invoice without a record here found: unknown at the service, or known there only. */
type Verdict = 'unknown' | 'no-record';

/**
 * A delivery's invoice as the service reports it now (the body is a trigger, the service the truth), in paced
 * lookups. Invoices this store has no record of cost about one lookup each (a budget a window, the verdict kept).
 */
export class DeliveryConfirmation {
  private readonly logger = new Logger(DeliveryConfirmation.name);
  readonly paced: PacedLookups;
  /** When the latest applied lookup started, per invoice. */
  private readonly confirmedAt = new Map<string, { at: number; recordId: string; status: ConfirmedStatus }>();
  private readonly verdicts = new Map<string, { verdict: Verdict; until: number }>();
  private readonly unknownLookups: CallCeiling;
  private unreported = 0;
  private lastReport = 0;

  constructor(
    gateway: GatewayClient,
    private readonly options: ResolvedWebhooksOptions,
    private readonly rows: WebhookInboxService,
  ) {
    const find = (gatewayId: string) => gateway.findInvoiceById(gatewayId);
    this.paced = new PacedLookups(find, options.lookupWindowMs, options.lookupsPerSecond);
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.unknownLookups = new CallCeiling(unknownLookupsPerWindow, Date.now, unknownLookupWindowMs);
  }

  /**
   * Whether a delivery whose invoice no record holds by number may be looked up now; else it is dead-lettered (the
   * service does not know it) or postponed without asking (budget spent, or known there with no record here yet).
   */
  async admit(entry: WebhookInboxEntry, gatewayId: string, local: boolean): Promise<boolean> {
    if (local) {
      this.forget(gatewayId);
      return true;
    }
    const verdict = this.verdictOf(gatewayId);
    if (verdict === 'unknown') {
      await this.deadLetterUnknown(entry, `the service does not know invoice ${gatewayId}`);
      return false;
    }
    if (verdict === 'no-record' || entry.lastError?.startsWith(NO_RECORD_YET)) {
      await this.waitForRecord(entry, gatewayId);
      return false;
    }
    if (this.unknownLookups.take()) return true;
    await this.rows.finish(entry, {
      lastError: `lookups of invoices without a record are limited; invoice ${gatewayId} waits`,
      nextAttemptAt: new Date(Date.now() + Math.max(this.unknownLookups.msUntilNextWindow(), 1)),
    });
    return false;
  }

  /**
   * The invoice as the service reports it now (one lookup for all `entries`), or `null` after scheduling their retry;
   * an invoice the service does not know and no record here (`local`) has is dead at once, and remembered.
   */
  async confirm(
    entries: WebhookInboxEntry[],
    gatewayId: string,
    local: boolean,
  ): Promise<{ invoice: Invoice; startedAt: Date } | null> {
    const startedAt = new Date();
    let problem: string;
    try {
      const invoice = await this.paced.lookup(gatewayId);
      if (invoice) {
        // Before any await, so a delivery of it admitted meanwhile waits for a record instead of asking again.
        if (!local) this.remember(gatewayId, 'no-record');
        return { invoice, startedAt };
      }
      problem = `the service does not know invoice ${gatewayId}`;
      if (!local) {
        this.remember(gatewayId, 'unknown');
        for (const entry of entries) await this.deadLetterUnknown(entry, problem);
        return null;
      }
    } catch (err) {
      problem = `could not confirm invoice ${gatewayId} with the service: ${message(err)}`;
    }
    for (const entry of entries) await this.notConfirmed(entry, problem);
    return null;
  }

  /** Retried with backoff for `unknownInvoiceWindowMs`, then dead; a lookup only put off is no failure. */
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

  /** Later deliveries of the invoice wait for a record too, without asking the service again, within the window. */
  async waitForRecord(entry: WebhookInboxEntry, gatewayId: string): Promise<void> {
    const waited = Date.now() - entry.receivedAt.getTime();
    if (waited < this.options.inbox.unknownInvoiceWindowMs) {
      return this.rows.retryLater(entry, `${NO_RECORD_YET} for invoice ${gatewayId}`);
    }
    await this.rows.deadLetter(entry, null, `no invoice record for invoice ${gatewayId} after ${waited} ms`);
  }

  /** The record a lookup that started after deliveries received up to `receivedBefore` was applied to, or `null`. */
  answeredRecord(gatewayId: string, receivedBefore: Date): string | null {
    return this.answerOf(gatewayId, receivedBefore)?.recordId ?? null;
  }

  /** The lookup that answered deliveries of `gatewayId` received up to `receivedBefore`, remembered in this process. */
  answerOf(gatewayId: string, receivedBefore: Date): { recordId: string; status: ConfirmedStatus } | null {
    const confirmed = this.confirmedAt.get(gatewayId);
    return confirmed !== undefined && receivedBefore.getTime() < confirmed.at ? confirmed : null;
  }

  applied(gatewayId: string, startedAt: Date, recordId: string, invoice: Invoice): void {
    const previous = this.confirmedAt.get(gatewayId);
    if (previous !== undefined && previous.at >= startedAt.getTime()) return;
    this.confirmedAt.delete(gatewayId);
    if (this.confirmedAt.size >= MAX_REMEMBERED) {
      this.confirmedAt.delete(this.confirmedAt.keys().next().value as string);
    }
    const { paidCents, grossCents } = invoice.amounts;
    const status = { code: invoice.status.code, paidCents, grossCents };
    this.confirmedAt.set(gatewayId, { at: startedAt.getTime(), recordId, status });
  }

  /** A record of `gatewayId` exists now. */
  forget(gatewayId: string): void {
    this.verdicts.delete(gatewayId);
  }

  private remember(gatewayId: string, verdict: Verdict): void {
    const t = Date.now();
    if (this.verdicts.size >= MAX_REMEMBERED) {
      for (const [id, v] of this.verdicts) if (v.until <= t) this.verdicts.delete(id);
      if (this.verdicts.size >= MAX_REMEMBERED)
        this.verdicts.delete(this.verdicts.keys().next().value as string);
    }
    this.verdicts.set(gatewayId, { verdict, until: t + VERDICT_MS });
  }

  private verdictOf(gatewayId: string): Verdict | null {
    const v = this.verdicts.get(gatewayId);
    if (!v) return null;
    if (v.until > Date.now()) return v.verdict;
    this.verdicts.delete(gatewayId);
    return null;
  }

  /** Dead-letters a delivery of an invoice the service does not know: one alert a window, not one per delivery. */
  private async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.rows.deadLetter(entry, null, reason, false);
    this.unreported++;
    const t = Date.now();
    if (t - this.lastReport < this.options.inbox.unknownLookupWindowMs) return;
    this.lastReport = t;
    const count = this.unreported;
    this.unreported = 0;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    this.rows.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: null,
      message: `${count} webhook delivery(ies) named invoices neither this store nor the service knows (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`,
    });
  }
}
