import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Coalescer } from '../core/coalescer';
import {
  type InvoicePaymentsAlert as Alert,
  InvoicePaymentsEvents,
  messageOf as message,
} from '../core/events';
import { doublingDelayMs } from '../core/queue/backoff';
import { LeasedRows, purgeFinished } from '../core/queue/leased-rows';
import { clip } from '../core/text-bounds';
import { dataSourceOf, escapeQuery, queryReturning } from '../core/typeorm-compat';
import { dialectOf, runStatement } from '../persistence/dialect';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { WebhookInboxEntry, WebhookInboxState } from './webhook-inbox.entity';
import type { WebhookDelivery } from './webhook-body';

/** What storing a delivery did (`duplicate`: a retry or copy of a stored one; `problem`: why a dead one is). */
export interface StoredDelivery {
  id: string;
  duplicate: boolean;
  state: WebhookInboxState;
  problem: string | null;
  gatewayId: string | null;
}

/** An entry a batch answered: how, and the record it was applied to. */
export interface Closing {
  entry: WebhookInboxEntry;
  outcome: string;
  recordId: string;
}

/** Deliveries stored in one statement at most (20 parameters each). */
const MAX_ROWS_PER_INSERT = 50;
/** Entries closed by one statement (three parameters each). */
const CLOSE_CHUNK = 500;

/**
 * The inbox's rows: deliveries written once per dedupe key, claimed under a lease ({@link LeasedRows}), then closed,
 * retried later with backoff, or dead-lettered with an alert.
 */
@Injectable()
export class WebhookInboxService {
  private readonly logger = new Logger(WebhookInboxService.name);
  /** Deliveries that arrive while an insert is in flight are written together by the next (group commit). */
  private readonly writer = new Coalescer<WebhookInboxEntry, boolean>(
    (entries) => this.insertAll(entries),
    MAX_ROWS_PER_INSERT,
  );
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

  /** Stores a delivery; a pending one is due at `dueAt` (default now: a lookup of its invoice may start at once). */
  async store(
    delivery: WebhookDelivery,
    headerWebhookId: string | null,
    dueAt?: Date,
  ): Promise<StoredDelivery> {
    const now = new Date();
    const invoice = delivery.invoice;
    const state: WebhookInboxState = invoice ? 'pending' : 'ignored';
    const entry: WebhookInboxEntry = Object.assign(new WebhookInboxEntry(), {
      id: randomUUID(),
      dedupeKey: delivery.dedupeKey,
      event: clip(delivery.event, 64),
      deliveryId: clip(delivery.deliveryId, 128),
      webhookId: clip(delivery.webhookId ?? headerWebhookId, 128),
      gatewayId: clip(invoice?.id ?? null, 128),
      referrer: clip(invoice?.referrer ?? null, 160),
      statusCode: invoice?.statusCode ?? null,
      sentAt: clip(delivery.sentAt, 32),
      payload: JSON.stringify(delivery.payload ?? {}),
      state,
      attempts: 0,
      nextAttemptAt: state === 'pending' ? (dueAt ?? now) : null,
      lockedUntil: null,
      lastError: null,
      outcome: state === 'ignored' ? 'test delivery without an invoice' : null,
      invoiceRecordId: null,
      receivedAt: now,
      processedAt: state === 'pending' ? null : now,
    });
    // A duplicate dedupe key is ignored: a retry is answered from its row. Answered once committed.
    const inserted = await this.writer.submit(entry);
    if (inserted) return { id: entry.id, duplicate: false, state, problem: null, gatewayId: entry.gatewayId };
    const found = await this.dataSource
      .getRepository(WebhookInboxEntry)
      .findOneBy({ dedupeKey: entry.dedupeKey });
    if (!found) throw new Error(`webhook inbox: delivery ${entry.dedupeKey} neither stored nor found`);
    const problem = found.state === 'dead' ? found.lastError : null;
    return { id: found.id, duplicate: true, state: found.state, problem, gatewayId: found.gatewayId };
  }

  /**
   * Joins a delivery to pending, unclaimed entry `id`: its `received_at` becomes now, so only a later lookup answers
   * it. One statement, as a claim is, so the two never interleave; `false` when the entry was claimed or finished.
   */
  async joinWaiting(id: string): Promise<boolean> {
    const [sql, values] = escapeQuery(
      this.dataSource,
      `UPDATE ${this.table} SET received_at = :now WHERE id = :id AND state = 'pending' ` +
        'AND (locked_until IS NULL OR locked_until <= :now) RETURNING id',
      { now: new Date().toISOString(), id },
    );
    const rows = await runStatement(this.dataSource, (em) => queryReturning(em, sql, values));
    return rows.length > 0;
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

  /** For each entry, whether it was written (`false`: its dedupe key was already stored). */
  private async insertAll(entries: WebhookInboxEntry[]): Promise<Array<boolean | Error>> {
    const insert = (some: WebhookInboxEntry[]) =>
      runStatement(this.dataSource, (em) => insertIgnoringDuplicates(em, some));
    try {
      const written = await insert(entries);
      return entries.map((e) => written.has(e.id));
    } catch (err) {
      if (entries.length === 1) throw err;
      // A row the database refuses must not fail the deliveries that arrived with it: each goes again alone.
      return Promise.all(
        entries.map((e) =>
          insert([e]).then(
            (written) => written.has(e.id),
            (one: unknown) => (one instanceof Error ? one : new Error(String(one))),
          ),
        ),
      );
    }
  }
}

/** The ids of the entries written, ignoring duplicate dedupe keys; values through the entity's transformers. */
async function insertIgnoringDuplicates(
  em: EntityManager,
  entries: WebhookInboxEntry[],
): Promise<Set<string>> {
  const dataSource = dataSourceOf(em);
  const { columns, tableName } = dataSource.getMetadata(WebhookInboxEntry);
  const { parameter, insertIgnoring } = dialectOf(dataSource);
  const names = columns.map((c) => `"${c.databaseName}"`).join(', ');
  const tuples = entries.map(
    (_e, r) => `(${columns.map((_c, i) => parameter(r * columns.length + i + 1)).join(', ')})`,
  );
  const sql = insertIgnoring(`"${tableName}"`, names, tuples.join(', '), '"dedupe_key"');
  const values = entries.flatMap((entry) => columns.map((c) => c.getEntityValue(entry, true) as unknown));
  const rows = await queryReturning(em, sql, values);
  return new Set(rows.map((r) => String(r.id)));
}
