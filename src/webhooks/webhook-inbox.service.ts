import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityMetadata } from 'typeorm';

/** A column of an entity (TypeORM exports its type only through `EntityMetadata` on both lines). */
type ColumnMetadata = EntityMetadata['columns'][number];
import { Coalescer } from '../core/coalescer';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { MAX_JSON_DEPTH } from '../gateway/payload.reader';
import { isPostgres, runStatement } from '../persistence/dialect';
import { dataSourceOf, queryReturning } from '../core/typeorm-compat';
import { WebhookInboxEntry, WebhookInboxState } from './webhook-inbox.entity';
import type { WebhookDelivery } from './webhook-payload';
import { clip } from '../core/text-bounds';

/** What storing a delivery did. */
export interface StoredDelivery {
  id: string;
  /** The dedupe key was already in the inbox: this is a retry or a duplicate of a stored delivery. */
  duplicate: boolean;
  state: WebhookInboxState;
  /** Why the entry is dead (unreadable payload); `null` otherwise. */
  problem: string | null;
  /** The service's invoice number, when readable. */
  gatewayId: string | null;
}

/** Deliveries stored in one statement at most (20 parameters each). */
const MAX_ROWS_PER_INSERT = 50;

const NO_INVOICE =
  'body: no invoice (accepted: `invoice`, `fatura`, or an event wrapper `data`/`payload` around either)';

/**
 * Writes authenticated deliveries to the inbox, once per dedupe key. A readable invoice is stored `pending` for the
 * processor; a test delivery without an invoice is `ignored`; an unreadable one is kept `dead` and raised as an
 * alert, so nothing the service sent is ever dropped silently.
 */
@Injectable()
export class WebhookInboxService {
  private readonly logger = new Logger(WebhookInboxService.name);
  /** Deliveries that arrive while an insert is in flight are written together by the next (group commit). */
  private readonly writer = new Coalescer<WebhookInboxEntry, boolean>(
    (entries) => this.insertAll(entries),
    MAX_ROWS_PER_INSERT,
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
  ) {}

  /** Stores a delivery; a pending one is due at `dueAt` (default now: a lookup of its invoice may start at once). */
  async store(
    delivery: WebhookDelivery,
    body: Record<string, unknown>,
    headerWebhookId: string | null,
    dueAt: Date | null = null,
  ): Promise<StoredDelivery> {
    const now = new Date();
    const invoice = delivery.invoice;
    const state: WebhookInboxState = invoice ? 'pending' : delivery.test ? 'ignored' : 'dead';
    const problem = state === 'dead' ? (delivery.invoiceError ?? NO_INVOICE) : null;
    const entry: WebhookInboxEntry = Object.assign(new WebhookInboxEntry(), {
      id: randomUUID(),
      dedupeKey: delivery.dedupeKey,
      event: clip(delivery.event, 64),
      deliveryId: clip(delivery.deliveryId, 128),
      webhookId: clip(delivery.webhookId ?? headerWebhookId, 128),
      gatewayId: clip(invoice?.id ?? null, 128),
      referrer: clip(invoice?.referrer ?? null, 160),
      statusCode: invoice?.status.code ?? null,
      sentAt: clip(delivery.sentAt, 32),
      // The normalizer's copy has the card number, token and bin redacted; an unreadable body is redacted here.
      payload: JSON.stringify(invoice ? invoice.raw : redactCardData(body)),
      state,
      attempts: 0,
      nextAttemptAt: state === 'pending' ? (dueAt ?? now) : null,
      lockedUntil: null,
      lastError: problem,
      outcome: state === 'ignored' ? 'test delivery without an invoice' : null,
      invoiceRecordId: null,
      receivedAt: now,
      processedAt: state === 'pending' ? null : now,
    });
    // One statement that ignores a duplicate dedupe key: a retry of a stored delivery is answered from the row.
    // The route answers only once it has returned, so an acknowledged delivery is committed.
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
    if (state === 'dead') {
      this.logger.warn(`webhook delivery ${entry.id} dead-lettered: ${problem ?? ''}`);
      const alert: InvoicePaymentsAlert = {
        kind: 'webhook_dead_letter',
        orderId: null,
        invoiceRecordId: null,
        message: `webhook delivery ${entry.id} (event ${entry.event ?? '?'}) could not be read: ${problem ?? ''}`,
      };
      this.events.emit(InvoicePaymentsEvents.Alert, alert);
    }
    return { id: entry.id, duplicate: false, state, problem, gatewayId: entry.gatewayId };
  }

  /**
   * Joins a delivery to entry `id` of the same invoice while it is pending and not claimed: its `received_at` becomes
   * now, so no lookup that started before this delivery answers it (lookups start after their entries are claimed).
   * One statement; `false` when the entry was claimed or finished (the delivery is then stored as its own entry). A
   * claim is one statement too, so the two never interleave.
   */
  async joinWaiting(id: string): Promise<boolean> {
    const now = new Date().toISOString();
    const pg = isPostgres(this.dataSource);
    const [p1, p2] = pg ? ['$1', '$2'] : ['?', '?'];
    const sql =
      `UPDATE invoice_payments_webhook_inbox SET received_at = ${p1} WHERE id = ${p2} AND state = 'pending' ` +
      `AND (locked_until IS NULL OR locked_until <= ${p1}) RETURNING id`;
    const values = pg ? [now, id] : [now, id, now];
    const rows = await runStatement(this.dataSource, (em) => queryReturning(em, sql, values));
    return rows.length > 0;
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
    const postgres = isPostgres(dataSource);
    const width = known.columns.length;
    const names = known.columns.map((c) => `"${c.databaseName}"`).join(', ');
    const tuples = Array.from({ length: rows }, (_, r) => {
      const marks = known.columns.map((_c, i) => (postgres ? `$${r * width + i + 1}` : '?'));
      return `(${marks.join(', ')})`;
    }).join(', ');
    const table = '"invoice_payments_webhook_inbox"';
    sql = postgres
      ? `INSERT INTO ${table} (${names}) VALUES ${tuples} ON CONFLICT ("dedupe_key") DO NOTHING RETURNING "id"`
      : `INSERT OR IGNORE INTO ${table} (${names}) VALUES ${tuples} RETURNING "id"`;
    known.sql.set(rows, sql);
  }
  return { columns: known.columns, sql };
}

const CARD_SECRETS = new Set(['number', 'numero', 'token', 'bin']);

/** A copy of `value` with `number`, `numero`, `token` and `bin` redacted inside every `card`/`cartao` object. */
export function redactCardData(value: unknown, inCard = false, depth = 0): unknown {
  // Bodies reach here depth-checked; the bound keeps this safe for any other caller.
  if (depth > MAX_JSON_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactCardData(v, inCard, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (inCard && CARD_SECRETS.has(key) && v !== null && v !== undefined) out[key] = '[redacted]';
    else out[key] = redactCardData(v, key === 'card' || key === 'cartao', depth + 1);
  }
  return out;
}
