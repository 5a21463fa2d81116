import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, Not, QueryFailedError } from 'typeorm';
import { InvoiceIdentity } from './invoice-identity';
import { clip, idProblem } from '../domain/text-and-days';
import { runInTransaction, runStatement } from '../persistence/dialect';
import { escapeQuery } from '../persistence/typeorm-compat';
import {
  InvoiceRecord,
  NEVER,
  type InvoiceCreationState,
  InvoiceStatusHistory,
} from '../persistence/invoice.entity';
import { foreignReferrerOwner, insertNextAttempt, type ClaimInput } from './attempt-claim';
import { CheckoutValidationError, InvoiceRecordNotFoundError } from './invoice.errors';
import { CLOCK, type Clock } from '../domain/clock';
import { backOnSchedule } from './reconciliation-watch';

/** A creation-state move: the states the record must be in (compare-and-set), and what the move writes. */
export interface CreationMove {
  from: readonly InvoiceCreationState[];
  patch: Partial<InvoiceRecord>;
}

/** Each creation state from the states that may reach it (`created` is final); see {@link creationMove}. */
export const CREATION_MOVES: Readonly<Record<InvoiceCreationState, readonly InvoiceCreationState[]>> = {
  pending: ['pending', 'unknown'],
  unknown: ['pending'],
  created: ['pending', 'unknown', 'failed'],
  failed: ['pending', 'unknown'],
};

/** Throws for a move the table does not list (a bug of the module). */
export function creationMove(
  from: readonly InvoiceCreationState[],
  to: InvoiceCreationState,
  fields: Partial<InvoiceRecord>,
): CreationMove {
  const refused = from.filter((state) => !CREATION_MOVES[to].includes(state));
  if (from.length === 0 || refused.length > 0)
    throw new Error(`creation state: no move from ${refused.join(', ') || 'nothing'} to ${to}`);
  return { from: [...from], patch: { ...fields, creationState: to } };
}

/**
 * Why `move` may not be written onto `record`, or `null`: the record is in no state the move starts from, or holds
 * another invoice's number (an invoice linked to it meanwhile keeps it). A record the move has already reached, with
 * the same number (its webhook linked it first), takes it again: the report's status must not be lost.
 */
export function creationMoveRefusal(record: InvoiceRecord, { from, patch }: CreationMove): string | null {
  const reached = record.gatewayId !== null && record.creationState === patch.creationState;
  if (!from.includes(record.creationState) && !(reached && record.gatewayId === patch.gatewayId))
    return `its creation state is ${record.creationState}`;
  if (record.gatewayId !== null && record.gatewayId !== patch.gatewayId)
    return `it holds invoice ${record.gatewayId}, not ${patch.gatewayId ?? 'none'}`;
  return null;
}

/** The checkout's invoice rows; writes go through `runInTransaction`/`runStatement` (SQLite's one connection). */
@Injectable()
export class InvoiceRecordStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    readonly identity: InvoiceIdentity,
    @Inject(CLOCK) private readonly clock: Clock,
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
    const now = this.clock.date();
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
    const written = { ...patch, updatedAt: this.clock.date() };
    const guards = ['creation_state IN (:...from)', 'version = :version'];
    if (!(await this.update(record.id, written, guards, { from, version: record.version }))) return null;
    return { ...record, ...written, version: record.version + 1 };
  }

  /** Clears a duplicate's mark that still names the record it named when read; whether it did. */
  unmark(record: InvoiceRecord): Promise<boolean> {
    const was = record.duplicateOf;
    return this.update(record.id, { duplicateOf: null }, ['duplicate_of = :was'], { was });
  }

  /** Puts a record the reconciliation took off its schedule back on it ({@link backOnSchedule}: due now). */
  backOnSchedule(id: string): Promise<boolean> {
    const offSchedule = `next_check_at >= '${NEVER.toISOString()}'`;
    return this.update(id, backOnSchedule(this.clock.date()), [offSchedule]);
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
        .set({ updatedAt: this.clock.date(), ...set })
        .where('id = :id', { ...params, id });
      for (const guard of guards) qb.andWhere(guard);
      return ((await qb.execute()).affected ?? 0) > 0;
    });
  }

  /** A person's resolution in the status history, never dispatched to the host (not applied). */
  async recordResolution(record: InvoiceRecord, actor: string, note: string): Promise<void> {
    const now = this.clock.date();
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

/**
 * The invoice the order follows among its records: the one holding the order, or, when that one is marked as a
 * duplicate (another invoice's payment won while its cancel had not taken effect), the one it duplicates. `null`
 * when none holds it: an invoice paid after its cancel, for one, never holds the order again.
 */
export function invoiceOrderFollows(
  records: readonly InvoiceRecord[],
  orderId: string,
): InvoiceRecord | null {
  const holder = records.find((r) => r.openOrderId === orderId);
  if (!holder?.duplicateOf) return holder ?? null;
  return records.find((r) => r.id === holder.duplicateOf) ?? null;
}

export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = (err as QueryFailedError & { driverError?: { code?: string } }).driverError;
  return driverError?.code === '23505' || /UNIQUE constraint failed/i.test(err.message);
}
