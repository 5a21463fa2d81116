import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import { Coalescer } from '../core/coalescer';
import { runStatement } from '../persistence/dialect';
import { dataSourceOf, escapeQuery, queryReturning } from '../core/typeorm-compat';
import { dialectOf } from '../persistence/dialect';
import { WebhookInboxEntry, WebhookInboxState } from './webhook-inbox.entity';
import { redactCardData, type WebhookDelivery } from './webhook-payload';
import { clip } from '../core/text-bounds';

/** A column of an entity (TypeORM exports its type only through `EntityMetadata` on both lines). */
type ColumnMetadata = EntityMetadata['columns'][number];

/** What storing a delivery did. */
export interface StoredDelivery {
  id: string;
  /** The dedupe key was already in the inbox: this is a retry or a duplicate of a stored delivery. */
  duplicate: boolean;
  state: WebhookInboxState;
  /** Why the entry is dead; `null` otherwise. */
  problem: string | null;
  /** The service's invoice number, when readable. */
  gatewayId: string | null;
}

/** Deliveries stored in one statement at most (20 parameters each). */
const MAX_ROWS_PER_INSERT = 50;

/**
 * Writes taken deliveries to the inbox, once per dedupe key: one naming an invoice is stored `pending` for the
 * processor, a test delivery without one `ignored`.
 */
@Injectable()
export class WebhookInboxService {
  /** Deliveries that arrive while an insert is in flight are written together by the next (group commit). */
  private readonly writer = new Coalescer<WebhookInboxEntry, boolean>(
    (entries) => this.insertAll(entries),
    MAX_ROWS_PER_INSERT,
  );

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Stores a delivery; a pending one is due at `dueAt` (default now: a lookup of its invoice may start at once). */
  async store(
    delivery: WebhookDelivery,
    body: Record<string, unknown>,
    headerWebhookId: string | null,
    dueAt: Date | null = null,
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
      payload: JSON.stringify(delivery.payload ?? redactCardData(body)),
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
    if (!inserted) {
      const existing = await this.dataSource
        .getRepository(WebhookInboxEntry)
        .findOneBy({ dedupeKey: delivery.dedupeKey });
      if (!existing)
        throw new Error(`webhook inbox: delivery ${delivery.dedupeKey} neither stored nor found`);
      return {
        id: existing.id,
        duplicate: true,
        state: existing.state,
        problem: existing.state === 'dead' ? existing.lastError : null,
        gatewayId: existing.gatewayId,
      };
    }
    return { id: entry.id, duplicate: false, state, problem: null, gatewayId: entry.gatewayId };
  }

  /**
   * Joins a delivery to entry `id` of its invoice while that is pending and unclaimed: its `received_at` becomes now,
   * so only a lookup that starts later answers it. One statement, as a claim is, so the two never interleave; `false`
   * when the entry was claimed or finished (the delivery is then stored as its own entry).
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

/**
 * `INSERT ... ON CONFLICT DO NOTHING` (PostgreSQL) or `INSERT OR IGNORE` (SQLite) of the entries, `RETURNING id`:
 * the ids of the rows written (an entry whose dedupe key was already there, or earlier in the same statement, is
 * not). Columns and values come from the entity's metadata, so its transformers apply.
 */
async function insertIgnoringDuplicates(
  em: EntityManager,
  entries: WebhookInboxEntry[],
): Promise<Set<string>> {
  const { columns, sql } = insertStatementOf(dataSourceOf(em), entries.length);
  const values = entries.flatMap((entry) => columns.map((c) => c.getEntityValue(entry, true) as unknown));
  const rows = await queryReturning(em, sql, values);
  return new Set(rows.map((r) => String(r.id)));
}

/** The statement for `rows` entries, built once per DataSource and row count. */
const insertStatements = new WeakMap<DataSource, { columns: ColumnMetadata[]; sql: Map<number, string> }>();

function insertStatementOf(dataSource: DataSource, rows: number): { columns: ColumnMetadata[]; sql: string } {
  let known = insertStatements.get(dataSource);
  if (!known) {
    known = { columns: dataSource.getMetadata(WebhookInboxEntry).columns, sql: new Map() };
    insertStatements.set(dataSource, known);
  }
  let sql = known.sql.get(rows);
  if (!sql) {
    const dialect = dialectOf(dataSource);
    const width = known.columns.length;
    const names = known.columns.map((c) => `"${c.databaseName}"`).join(', ');
    const tuples = Array.from({ length: rows }, (_, r) => {
      const marks = known.columns.map((_c, i) => dialect.parameter(r * width + i + 1));
      return `(${marks.join(', ')})`;
    }).join(', ');
    const table = `"${dataSource.getMetadata(WebhookInboxEntry).tableName}"`;
    sql = dialect.insertIgnoring(table, names, tuples, '"dedupe_key"');
    known.sql.set(rows, sql);
  }
  return { columns: known.columns, sql };
}
