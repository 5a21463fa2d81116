import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  type InvoicePaymentsAlert as Alert,
  InvoicePaymentsEvents,
  messageOf as message,
} from '../core/events';
import { doublingDelayMs } from '../core/queue/backoff';
import { LeasedRows, purgeFinished } from '../core/queue/leased-rows';
import { clip } from '../core/text-bounds';
import { dialectOf, runStatement } from '../persistence/dialect';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { WebhookInboxEntry } from './webhook-inbox.entity';

/** An entry a batch answered: how, and the record it was applied to. */
export interface Closing {
  entry: WebhookInboxEntry;
  outcome: string;
  recordId: string;
}

/** Entries closed by one statement (three parameters each). */
const CLOSE_CHUNK = 500;

/**
 * The inbox's rows: deliveries written once per dedupe key, claimed under a lease ({@link LeasedRows}), then closed,
 * retried later with backoff, or dead-lettered with an alert.
 */
@Injectable()
export class WebhookInboxService {
  private readonly logger = new Logger(WebhookInboxService.name);
  /** Claims under a lease: due entries oldest first (`o.received_at`), or one by id. */
  readonly leased: LeasedRows<WebhookInboxEntry>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
  ) {
    this.leased = new LeasedRows(
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

  /** Closes claimed entries as processed in one statement, only while still pending (never written twice). */
  async closeProcessed(closings: Closing[]): Promise<void> {
    const { parameter } = dialectOf(this.dataSource);
    const table = this.table;
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

  /** After a failure to apply (a database error): retried later, or dead-lettered once its attempts are spent. */
  async failed(entry: WebhookInboxEntry, err: unknown): Promise<void> {
    if (entry.attempts >= this.options.inbox.maxAttempts) {
      await this.deadLetter(entry, `gave up after ${entry.attempts} attempts: ${message(err)}`);
    } else {
      await this.retryLater(entry, message(err));
    }
  }

  async retryLater(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs);
    const next = new Date(Date.now() + delay);
    await this.leased.finish(entry, { lastError: clip(reason, 2000), nextAttemptAt: next });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  /** Dead-letters an entry; `alert` false when the caller raises one alert for many (unknown invoices). */
  async deadLetter(entry: WebhookInboxEntry, reason: string, alert = true): Promise<void> {
    const [lastError, processedAt] = [clip(reason, 2000), new Date()];
    await this.leased.finish(entry, { state: 'dead', lastError, processedAt });
    if (!alert) return;
    this.logger.warn(`webhook inbox entry ${entry.id} dead-lettered: ${reason}`);
    const what = `invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}`;
    this.alert(`webhook delivery ${entry.id} (${what}) dead-lettered: ${reason}`);
  }

  /** A delivery of an invoice that is not this store's (the identity check raised `foreign_invoice`): `ignored`. */
  async leftAlone(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.leased.finish(entry, {
      state: 'ignored',
      outcome: `left alone: not this store's invoice`,
      lastError: clip(reason, 2000),
      processedAt: new Date(),
    });
  }

  /** A `webhook_dead_letter` alert; a listener that throws is logged. */
  alert(text: string): void {
    const alert: Alert = { kind: 'webhook_dead_letter', orderId: null, invoiceRecordId: null, message: text };
    try {
      this.events.emit(InvoicePaymentsEvents.Alert, alert);
    } catch (err) {
      this.logger.error(`a listener of ${InvoicePaymentsEvents.Alert} threw: ${message(err)}`);
    }
  }

  /** Deletes finished rows older than `inbox.retentionMs` (they dedupe the service's retries till then). */
  async purge(stopped: () => boolean): Promise<number> {
    const rows = {
      table: this.table,
      finished: "state IN ('processed', 'ignored', 'dead')",
      finishedAt: 'processed_at',
    };
    try {
      return await purgeFinished(this.dataSource, rows, this.options.inbox.retentionMs, stopped);
    } catch (err) {
      this.logger.warn(`purging old webhook inbox rows failed: ${message(err)}`);
      return 0;
    }
  }

  private get table(): string {
    return this.dataSource.getMetadata(WebhookInboxEntry).tableName;
  }
}
