import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, Not, QueryFailedError } from 'typeorm';
import { InvoiceIdentity, recordOfInvoice } from '../core/invoice-identity';
import { clip, idProblem } from '../core/text-bounds';
import { runInTransaction, runStatement } from '../persistence/dialect';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { CheckoutValidationError, InvoiceRecordNotFoundError } from './errors';
import { ClaimInput, foreignReferrerOwner, insertNextAttempt } from './attempt-claim';
import type { CreationMove } from './creation-states';

/**
 * The invoice rows as the checkout uses them. Every write goes through `runInTransaction` or `runStatement`, which
 * keep SQLite's single shared connection from mixing these writes into another caller's open transaction.
 */
@Injectable()
export class InvoiceRecordStore {
  /** Whether an invoice found at the service is a record's: the checkout's one instance of the check. */
  readonly identity: InvoiceIdentity;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    gateway: GatewayClient,
    events: EventEmitter2,
  ) {
    this.identity = new InvoiceIdentity(gateway, events);
  }

  private get rows() {
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

  /** The order's open attempt (at most one: `open_order_id` is unique). */
  findOpen(orderId: string): Promise<InvoiceRecord | null> {
    return this.rows.findOneBy({ openOrderId: orderId });
  }

  /**
   * Claims the order for a new attempt: one INSERT of a `pending` row holding `open_order_id`, its attempt and
   * referrer computed by the statement ({@link insertNextAttempt}). Returns the row as written, or `null` when the
   * order has an open attempt (another caller's, or one the unique constraint refused the row for); only the caller
   * that gets a row may create.
   */
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

  /**
   * Makes a creation-state move if the row is still in one of its `from` states (and, given `updatedAt`, was not
   * written since) and reports whether it did: the compare-and-set that lets exactly one caller take over a stale
   * or unknown creation.
   */
  async transition(id: string, { from, patch }: CreationMove, updatedAt?: Date): Promise<boolean> {
    return runInTransaction(this.dataSource, async (em) => {
      const qb = em
        .getRepository(InvoiceRecord)
        .createQueryBuilder()
        .update()
        .set({ ...patch, updatedAt: new Date() })
        .where('id = :id', { id })
        .andWhere('creation_state IN (:...from)', { from });
      if (updatedAt) qb.andWhere('updated_at = :seen', { seen: updatedAt.toISOString() });
      const result = await qb.execute();
      return (result.affected ?? 0) > 0;
    });
  }

  async patch(id: string, patch: Partial<InvoiceRecord>): Promise<void> {
    await runInTransaction(this.dataSource, (em) =>
      em.getRepository(InvoiceRecord).update({ id }, { ...patch, updatedAt: new Date() }),
    );
  }

  /**
   * A creation-state move of a record no invoice is linked to yet (`gateway_id IS NULL`): closing an
   * attempt as "not created" must lose against a late invoice linked to it meanwhile. Reports whether it moved.
   */
  async transitionUnlinked(id: string, { from, patch }: CreationMove): Promise<boolean> {
    return runInTransaction(this.dataSource, async (em) => {
      const result = await em
        .getRepository(InvoiceRecord)
        .createQueryBuilder()
        .update()
        .set({ ...patch, updatedAt: new Date() })
        .where('id = :id', { id })
        .andWhere('creation_state IN (:...from)', { from })
        .andWhere('gateway_id IS NULL')
        .execute();
      return (result.affected ?? 0) > 0;
    });
  }

  /** Sets a column that is still `null` (`open_order_id`, `duplicate_of`); false when it was set, or refused. */
  async setIfNull(id: string, column: 'openOrderId' | 'duplicateOf', value: string): Promise<boolean> {
    const name = column === 'openOrderId' ? 'open_order_id' : 'duplicate_of';
    try {
      return await runInTransaction(this.dataSource, async (em) => {
        const result = await em
          .getRepository(InvoiceRecord)
          .createQueryBuilder()
          .update()
          .set({ [column]: value, updatedAt: new Date() })
          .where('id = :id', { id })
          .andWhere(`${name} IS NULL`)
          .execute();
        return (result.affected ?? 0) > 0;
      });
    } catch (err) {
      if (isUniqueViolation(err)) return false; // another attempt holds the order
      throw err;
    }
  }

  /**
   * Records a person's resolution of an attempt's creation in the status history: no status code, `source`
   * `admin`, who (`actor`) and when (`createdAt`); never dispatched to the host (not applied).
   */
  async recordResolution(record: InvoiceRecord, actor: string, note: string): Promise<void> {
    const now = new Date();
    await runInTransaction(this.dataSource, (em) =>
      em.getRepository(InvoiceStatusHistory).insert({
        id: randomUUID(),
        invoiceRecordId: record.id,
        fromCode: record.statusCode,
        toCode: null,
        statusText: null,
        source: 'admin',
        applied: false,
        note: clip(note, 255),
        alert: null,
        notifiedAt: now,
        notifyAttempts: 0,
        notifyError: null,
        actor: clip(actor, 128),
        createdAt: now,
      }),
    );
  }

  findByReferrer(referrer: string): Promise<InvoiceRecord | null> {
    return this.rows.findOneBy({ referrer });
  }

  findByGatewayId(gatewayId: string): Promise<InvoiceRecord | null> {
    return this.rows.findOneBy({ gatewayId });
  }

  /** The order's records that hold an invoice of the service, oldest attempt first. */
  linkedOf(orderId: string): Promise<InvoiceRecord[]> {
    return this.rows.find({
      where: { orderId, creationState: 'created', gatewayId: Not(IsNull()) },
      order: { attempt: 'ASC' },
    });
  }

  /**
   * The record of a service invoice ({@link recordOfInvoice}: by its number, else by its referrer only while that
   * attempt holds no invoice, identity-checked); `null` otherwise (another's invoice is alerted, never matched).
   */
  async findByInvoice(invoice: Invoice): Promise<InvoiceRecord | null> {
    return (await recordOfInvoice(this.rows, this.identity, invoice)).record;
  }
}

/** A unique constraint refused the write (PostgreSQL 23505, SQLite `UNIQUE constraint failed`). */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = (err as QueryFailedError & { driverError?: { code?: string } }).driverError;
  return driverError?.code === '23505' || /UNIQUE constraint failed/i.test(err.message);
}
