import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, getMetadataArgsStorage, IsNull, Not, QueryFailedError } from 'typeorm';
import { InvoiceIdentity } from './invoice-identity';
import { creationMove, type CreationMove } from './creation-move';
import { clip, idProblem } from '../domain/text-bounds';
import { runInTransaction, runStatement } from '../persistence/dialect';
import { escapeQuery, queryReturning } from '../persistence/typeorm-compat';
import type { CreateInvoiceParams } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import {
  InvoiceRecord,
  NEVER,
  type InvoiceCreationState,
  type RecognisedOrder,
} from '../persistence/invoice.entity';
import { CheckoutValidationError, InvoiceRecordNotFoundError } from './invoice.errors';

export interface ClaimInput extends Pick<
  InvoiceRecord,
  'orderId' | 'method' | 'currency' | 'amountCents' | 'installments'
> {
  reference: string;
  shown?: RecognisedOrder;
  /** `''`: none. */
  namespace: string;
  settlesAt: Date;
  /** The SHA-256 of the status token the claimer hands out (`status-token.ts`). */
  statusTokenHash: string;
}

/** A new row's columns as the entity defaults them, so the claimed row needs no read-back. */
export const BLANK: Partial<InvoiceRecord> = Object.fromEntries(
  getMetadataArgsStorage()
    .filterColumns(InvoiceRecord)
    .filter((column) => column.options.nullable || column.options.default !== undefined)
    .map((column) => [column.propertyName, column.options.default ?? null]),
);

/** The checkout's invoice rows; writes go through `runInTransaction`/`runStatement` (SQLite's one connection). */
@Injectable()
export class InvoiceRecordStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    readonly identity: InvoiceIdentity,
  ) {}

  get rows() {
    return this.dataSource.getRepository(InvoiceRecord);
  }

  async get(id: unknown): Promise<InvoiceRecord> {
    // Checked before SQL: a NUL byte or a 10 kB string from a session's data is a 400, never a database error.
    const problem = idProblem(id);
    if (problem) throw new CheckoutValidationError({ 'data.invoiceRecordId': [problem] });
    const record = await this.rows.findOneBy({ id: id as string });
    if (!record) throw new InvoiceRecordNotFoundError(id as string);
    return record;
  }

  /** The record a shopper's status token names (as the last one handed out, or the one before); else `null`. */
  findByStatusToken(hash: string): Promise<InvoiceRecord | null> {
    return this.rows.findOne({ where: [{ statusTokenHash: hash }, { previousTokenHash: hash }] });
  }

  /**
   * Hands out a new status token for the record: its hash becomes the current one and the current one the previous,
   * in one statement, so two concurrent callers both leave with a working token. The version is not bumped: the
   * token is no part of the payment, and a creation or status write guarded by the version must not lose to it.
   */
  async issueStatusToken(id: string, hash: string): Promise<void> {
    const table = this.dataSource.getMetadata(InvoiceRecord).tableName;
    // Raw: the query builder's UPDATE would bump the version too.
    const sql =
      `UPDATE ${table} SET previous_token_hash = status_token_hash, status_token_hash = :hash ` +
      'WHERE id = :id';
    await runStatement(this.dataSource, (em) => em.query(...escapeQuery(this.dataSource, sql, { hash, id })));
  }

  /** The order's open attempt (at most one: `open_order_id` is unique). */
  findOpen(orderId: string): Promise<InvoiceRecord | null> {
    return this.rows.findOneBy({ openOrderId: orderId });
  }

  /** Claims the order for a new attempt: the row as written, or `null` when the order has an open one. */
  async claim(input: ClaimInput): Promise<InvoiceRecord | null> {
    const now = new Date();
    try {
      return await runStatement(this.dataSource, (em) =>
        insertNextAttempt(em, this.dataSource, randomUUID(), input, now),
      );
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const owner = await foreignReferrerOwner(this.dataSource, input);
      if (owner) {
        throw new CheckoutValidationError({
          'order.reference': [`is already used by another order (referrer ${owner.referrer} exists)`],
        });
      }
      return null;
    }
  }

  /** Compare-and-set on `from`; closing or linking also loses to an invoice linked meanwhile. */
  async transition(id: string, { from, patch }: CreationMove): Promise<boolean> {
    const closing = patch.creationState === 'failed' || patch.creationState === 'created';
    const guards = ['creation_state IN (:...from)', ...(closing ? ['gateway_id IS NULL'] : [])];
    return this.update(id, patch, guards, { from });
  }

  /** Closes an attempt as "not created": the order's slot is free for the next attempt; `reason` is kept. */
  closeNotCreated(id: string, reason: string, from: InvoiceCreationState[] = ['pending']): Promise<boolean> {
    const closed = { openOrderId: null, failureReason: reason, attentionReason: null };
    return this.transition(id, creationMove(from, 'failed', closed));
  }

  /**
   * {@link transition} of the record as read, at its version (nothing written since, so no invoice linked either):
   * the record as written, on which a guarded status write lands; `null` when the record moved meanwhile.
   */
  async moveAsRead(record: InvoiceRecord, { from, patch }: CreationMove): Promise<InvoiceRecord | null> {
    const written = { ...patch, updatedAt: new Date() };
    const guards = ['creation_state IN (:...from)', 'version = :version'];
    if (!(await this.update(record.id, written, guards, { from, version: record.version }))) return null;
    return { ...record, ...written, version: record.version + 1 };
  }

  /** Clears a duplicate's mark that still names the record it named when read; whether it did. */
  unmark(record: InvoiceRecord): Promise<boolean> {
    const was = record.duplicateOf;
    return this.update(record.id, { duplicateOf: null }, ['duplicate_of = :was'], { was });
  }

  /** Puts a record the reconciliation took off its schedule back on it, due now. */
  backOnSchedule(id: string): Promise<boolean> {
    return this.update(id, { nextCheckAt: new Date() }, [`next_check_at >= '${NEVER.toISOString()}'`]);
  }

  /** Sets a column that is still `null` (`open_order_id`, `duplicate_of`); false when it was set, or refused. */
  async setIfNull(id: string, column: 'openOrderId' | 'duplicateOf', value: string): Promise<boolean> {
    const name = column === 'openOrderId' ? 'open_order_id' : 'duplicate_of';
    try {
      return await this.update(id, { [column]: value }, [`${name} IS NULL`]);
    } catch (err) {
      if (isUniqueViolation(err)) return false; // another attempt holds the order
      throw err;
    }
  }

  /** One UPDATE of the row under `guards`; whether it wrote. */
  private update(id: string, set: Partial<InvoiceRecord>, guards: string[], params = {}): Promise<boolean> {
    return runInTransaction(this.dataSource, async (em) => {
      const qb = em
        .getRepository(InvoiceRecord)
        .createQueryBuilder()
        .update()
        .set({ updatedAt: new Date(), ...set })
        .where('id = :id', { ...params, id });
      for (const guard of guards) qb.andWhere(guard);
      return ((await qb.execute()).affected ?? 0) > 0;
    });
  }

  /** A person's resolution in the status history, never dispatched to the host (not applied). */
  async recordResolution(record: InvoiceRecord, actor: string, note: string): Promise<void> {
    const now = new Date();
    await runInTransaction(this.dataSource, (em) =>
      em.getRepository(InvoiceStatusHistory).insert({
        id: randomUUID(),
        invoiceRecordId: record.id,
        fromCode: record.statusCode,
        source: 'admin',
        applied: false,
        note: clip(note, 255),
        notifiedAt: now,
        actor: clip(actor, 128),
        createdAt: now,
      }),
    );
  }

  linkedOf(orderId: string): Promise<InvoiceRecord[]> {
    return this.rows.find({
      where: { orderId, creationState: 'created', gatewayId: Not(IsNull()) },
      order: { attempt: 'ASC' },
    });
  }
}

export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = (err as QueryFailedError & { driverError?: { code?: string } }).driverError;
  return driverError?.code === '23505' || /UNIQUE constraint failed/i.test(err.message);
}

/** `<namespace>:<reference>-<attempt>`: unique per attempt and store, so an unknown outcome can be looked up. */
export function invoiceReferrer(reference: string, attempt: number, namespace = ''): string {
  return namespace ? `${namespace}:${reference}-${attempt}` : `${reference}-${attempt}`;
}

export function withReferrer(params: CreateInvoiceParams, referrer: string): CreateInvoiceParams {
  return { ...params, payment: { ...params.payment, referrer } };
}

function referrerPrefix(input: ClaimInput): string {
  return invoiceReferrer(input.reference, 0, input.namespace).slice(0, -1);
}

/**
 * Inserts the order's next attempt holding `open_order_id`, whose uniqueness guards "created once". A new order first
 * tries attempt 1 without the aggregate (PostgreSQL plans it in a fraction of the time).
 */
export async function insertNextAttempt(
  em: EntityManager,
  dataSource: DataSource,
  id: string,
  input: ClaimInput,
  now: Date,
): Promise<InvoiceRecord | null> {
  const table = dataSource.getMetadata(InvoiceRecord).tableName;
  const fields = {
    id,
    orderId: input.orderId,
    method: input.method,
    currency: input.currency,
    amountCents: input.amountCents,
    installments: input.installments,
    displayId: input.shown?.displayId ?? null,
    customerName: input.shown?.customerName ?? null,
    customerEmail: input.shown?.customerEmail ?? null,
    customerDocument: input.shown?.customerDocument ?? null,
    statusTokenHash: input.statusTokenHash,
  };
  const prefix = referrerPrefix(input);
  const params = {
    ...fields,
    prefix,
    firstReferrer: `${prefix}1`,
    settlesAt: input.settlesAt.toISOString(),
    now: now.toISOString(),
  };
  const columns =
    `INSERT INTO ${table} (id, order_id, open_order_id, attempt, referrer, creation_state, method, currency, ` +
    'amount_cents, installments, display_id, customer_name, customer_email, customer_document, status_token_hash, ' +
    'settles_at, created_at, updated_at, version) ';
  // Every value is cast (PostgreSQL types a bare SELECT-list parameter as text); text as TEXT, never VARCHAR(n),
  // whose explicit cast would truncate where the column refuses.
  const values = (attempt: string, referrer: string) =>
    `SELECT CAST(:id AS TEXT), CAST(:orderId AS TEXT), CAST(:orderId AS TEXT), ${attempt}, ${referrer}, 'pending', ` +
    'CAST(:method AS TEXT), CAST(:currency AS TEXT), CAST(:amountCents AS BIGINT), ' +
    'CAST(:installments AS INTEGER), CAST(:displayId AS TEXT), CAST(:customerName AS TEXT), ' +
    'CAST(:customerEmail AS TEXT), CAST(:customerDocument AS TEXT), CAST(:statusTokenHash AS TEXT), ' +
    'CAST(:settlesAt AS TEXT), CAST(:now AS TEXT), CAST(:now AS TEXT), 1 ';
  // Only for an order with no row at all: a changed referrer prefix must not give an order a second attempt 1.
  const first =
    columns +
    values('1', 'CAST(:firstReferrer AS TEXT)') +
    `WHERE NOT EXISTS (SELECT 1 FROM ${table} o WHERE o.order_id = :orderId) ` +
    'ON CONFLICT DO NOTHING RETURNING attempt, referrer';
  const next =
    columns +
    values('n.next_attempt', 'CAST(:prefix AS TEXT) || CAST(n.next_attempt AS TEXT)') +
    `FROM (SELECT COALESCE(MAX(attempt), 0) + 1 AS next_attempt FROM ${table} WHERE order_id = :orderId) n ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${table} o WHERE o.open_order_id = :orderId) RETURNING attempt, referrer`;
  const run = (sql: string) => queryReturning(em, ...escapeQuery(dataSource, sql, params));
  const written = (await run(first))[0] ?? (await run(next))[0];
  if (!written) return null;
  // Assigned in two steps: a literal spreading BLANK builds a new object shape per call (about 30 µs).
  return Object.assign(Object.assign(new InvoiceRecord(), BLANK), {
    ...fields,
    openOrderId: input.orderId,
    attempt: Number(written.attempt),
    referrer: String(written.referrer),
    creationState: 'pending',
    settlesAt: input.settlesAt,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
}

/** After a refused claim: another order's record holding the referrer this attempt would get (a reused reference). */
function foreignReferrerOwner(dataSource: DataSource, input: ClaimInput): Promise<InvoiceRecord | null> {
  const table = dataSource.getMetadata(InvoiceRecord).tableName;
  return dataSource
    .getRepository(InvoiceRecord)
    .createQueryBuilder('r')
    .where('r.orderId <> :orderId', { orderId: input.orderId })
    .andWhere(
      'r.referrer = CAST(:prefix AS TEXT) || CAST((SELECT COALESCE(MAX(o.attempt), 0) + 1 ' +
        `FROM ${table} o WHERE o.order_id = :orderId) AS TEXT)`,
      { prefix: referrerPrefix(input) },
    )
    .getOne();
}
