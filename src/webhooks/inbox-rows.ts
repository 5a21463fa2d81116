import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import type { StatusReport } from '../core/status-plan';
import type { Invoice } from '../gateway/types';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { doublingDelayMs } from '../core/queue/backoff';
import { LeasedRows } from '../core/queue/leased-rows';
import { runStatement } from '../persistence/dialect';
import { dialectOf } from '../persistence/dialect';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { UnknownInvoices } from './unknown-invoices';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import { clip } from '../core/text-bounds';

/**
 * How an inbox entry is taken and how it ends: claimed under a lease (the core queue's {@link LeasedRows}), then
 * finished, retried later with the queue's backoff, or dead-lettered with an alert.
 */
export class InboxRows {
  private readonly logger = new Logger(InboxRows.name);
  private readonly rows: LeasedRows<WebhookInboxEntry>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
    private readonly options: ResolvedWebhooksOptions,
    readonly unknown: UnknownInvoices,
  ) {
    this.rows = new LeasedRows(
      dataSource,
      WebhookInboxEntry,
      {
        table: dataSource.getMetadata(WebhookInboxEntry).tableName,
        open: { sql: (t) => `${t}state = 'pending'`, where: { state: 'pending' } },
        lockedUntil: 'locked_until',
        attempts: 'attempts',
        nextAttemptAt: 'next_attempt_at',
      },
      () => options.inbox.leaseMs,
    );
  }

  /** Takes up to `limit` due entries (lease) in one statement, oldest first. */
  claimDue(limit: number): Promise<WebhookInboxEntry[]> {
    return this.rows.claimDueRows(limit, 'o.received_at');
  }

  /**
   * Closes entries this processor holds as processed, each with its outcome and record, in one statement for all
   * of them (only while still pending: an entry finished elsewhere is never written twice).
   */
  async closeProcessed(closings: Closing[]): Promise<void> {
    const { parameter } = dialectOf(this.dataSource);
    const table = this.dataSource.getMetadata(WebhookInboxEntry).tableName;
    for (let i = 0; i < closings.length; i += CLOSE_CHUNK) {
      const values: unknown[] = [new Date().toISOString()];
      const processedAt = parameter(1);
      const rows = closings.slice(i, i + CLOSE_CHUNK).map(({ entry, outcome, recordId }) => {
        const n = values.push(entry.id, clip(outcome, 255), recordId);
        return `SELECT ${parameter(n - 2)} AS id, ${parameter(n - 1)} AS outcome, ${parameter(n)} AS record_id`;
      });
      const sql =
        `UPDATE ${table} SET state = 'processed', outcome = v.outcome, invoice_record_id = v.record_id, ` +
        `last_error = NULL, processed_at = ${processedAt}, locked_until = NULL ` +
        `FROM (${rows.join(' UNION ALL ')}) v WHERE ${table}.id = v.id AND ${table}.state = 'pending'`;
      await runStatement(this.dataSource, (em) => em.query(sql, values));
    }
  }

  /** Takes an entry (lease), or `null` when it is taken, done, or (with `dueOnly`) not due. */
  claim(id: string, dueOnly: boolean): Promise<WebhookInboxEntry | null> {
    return this.rows.claim(id, dueOnly);
  }

  /** After a failure to apply (a database error): retried later, or dead-lettered once its attempts are spent. */
  async failed(entry: WebhookInboxEntry, err: unknown): Promise<void> {
    if (entry.attempts >= this.options.inbox.maxAttempts) {
      await this.deadLetter(entry, null, `gave up after ${entry.attempts} attempts: ${message(err)}`);
    } else {
      await this.retryLater(entry, message(err));
    }
  }

  async retryLater(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs);
    const next = new Date(Date.now() + delay);
    await this.finish(entry, { lastError: clip(reason, 2000), nextAttemptAt: next, lockedUntil: null });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  async deadLetter(entry: WebhookInboxEntry, recordId: string | null, reason: string): Promise<void> {
    await this.finish(entry, { state: 'dead', lastError: clip(reason, 2000), processedAt: new Date() });
    this.logger.warn(`webhook inbox entry ${entry.id} dead-lettered: ${reason}`);
    this.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: recordId,
      message: `webhook delivery ${entry.id} (invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}) dead-lettered: ${reason}`,
    });
  }

  /**
   * Closes a delivery whose invoice is not this store's although a record has its referrer (or its number with
   * another referrer): `ignored`, applied to nothing. The identity check raised the alert (`foreign_invoice`).
   */
  async leftAlone(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.finish(entry, {
      state: 'ignored',
      outcome: clip(`left alone: not this store's invoice`, 255),
      lastError: clip(reason, 2000),
      processedAt: new Date(),
    });
  }

  /** Dead-letters a delivery for an invoice the service does not know; one alert a window, not one per delivery. */
  async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.finish(entry, { state: 'dead', lastError: clip(reason, 2000), processedAt: new Date() });
    const count = this.unknown.countForAlert();
    if (count === 0) return;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    this.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: null,
      message: `${count} webhook delivery(ies) named invoices neither this store nor the service knows (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`,
    });
  }

  alert(alert: InvoicePaymentsAlert): void {
    try {
      this.events.emit(InvoicePaymentsEvents.Alert, alert);
    } catch (err) {
      this.logger.error(`a listener of ${InvoicePaymentsEvents.Alert} threw: ${message(err)}`);
    }
  }

  /** Updates an entry this processor claimed; releases the claim. */
  finish(entry: WebhookInboxEntry, patch: Partial<WebhookInboxEntry>): Promise<void> {
    return this.rows.finish(entry, patch);
  }
}

/** An entry a batch answered: how, and the record it was applied to. */
export interface Closing {
  entry: WebhookInboxEntry;
  outcome: string;
  recordId: string;
}

/** The outcome of a delivery answered by a confirmation made after it arrived (`DeliveryConfirmation.answered`). */
export const ANSWERED = 'answered by a confirmation with the service made after it arrived';

/** Entries closed by one statement (three parameters each). */
const CLOSE_CHUNK = 500;

/** The status report of an invoice the webhook path applies. */
export function reportOf(recordId: string, invoice: Invoice): StatusReport {
  return { recordId, code: invoice.status.code, text: invoice.status.text, source: 'webhook', invoice };
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
