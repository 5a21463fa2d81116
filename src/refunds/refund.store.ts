import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, LessThanOrEqual } from 'typeorm';
import { runStatement } from '../persistence/dialect';
import { isUniqueViolation } from '../checkout/invoice-record.store';
import { IN_FLIGHT_STATES, InvoiceRefund, RefundState } from './refund.entity';

/** What a new ledger row starts with. */
export interface NewRefund {
  invoiceRecordId: string;
  amountCents: number;
  requestedBy: string;
  idempotencyKey: string;
}

/** Why a row could not be written: the invoice's slot is held, or the key names an existing refund. */
export type ClaimResult =
  { claimed: InvoiceRefund } | { sameKey: InvoiceRefund } | { inFlight: InvoiceRefund | null };

/**
 * The refund ledger's rows. Every write is one statement (`runStatement`): the insert that claims an invoice's
 * in-flight slot, and compare-and-set updates that move a row only from the state its caller saw.
 */
@Injectable()
export class RefundStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get rows() {
    return this.dataSource.getRepository(InvoiceRefund);
  }

  get(id: string): Promise<InvoiceRefund | null> {
    return this.rows.findOneBy({ id });
  }

  byKey(invoiceRecordId: string, idempotencyKey: string): Promise<InvoiceRefund | null> {
    return this.rows.findOneBy({ invoiceRecordId, idempotencyKey });
  }

  /** The invoice's refund in flight (`pending` or `unknown`), if any: at most one (unique slot). */
  inFlight(invoiceRecordId: string): Promise<InvoiceRefund | null> {
    return this.rows.findOneBy({ inFlightInvoiceId: invoiceRecordId });
  }

  /** Every refund of an invoice, newest first. */
  list(invoiceRecordId: string): Promise<InvoiceRefund[]> {
    return this.rows.find({ where: { invoiceRecordId }, order: { createdAt: 'DESC', id: 'ASC' }, take: 200 });
  }

  /**
   * The latest refund of this invoice and amount asked for since `since` that did not fail, other than `except`
   * (keyless repeats, see `RefundService`).
   */
  latestSimilar(
    invoiceRecordId: string,
    amountCents: number,
    since: Date,
    except?: string,
  ): Promise<InvoiceRefund | null> {
    const query = this.rows
      .createQueryBuilder('r')
      .where('r.invoiceRecordId = :invoiceRecordId', { invoiceRecordId })
      .andWhere('r.amountCents = :amountCents', { amountCents })
      .andWhere('r.createdAt >= :since', { since: since.toISOString() })
      .andWhere('r.state != :failed', { failed: 'failed' });
    if (except) query.andWhere('r.id != :except', { except });
    return query.orderBy('r.createdAt', 'DESC').getOne();
  }

  /**
   * Writes a `pending` row holding the invoice's in-flight slot. The database decides between concurrent callers,
   * in one app instance or many: the unique slot refuses a second refund in flight, the unique key a repeat.
   */
  async claim(input: NewRefund): Promise<ClaimResult> {
    const now = new Date();
    const row = this.rows.create({
      id: randomUUID(),
      ...input,
      inFlightInvoiceId: input.invoiceRecordId,
      state: 'pending',
      baselineCents: null,
      settlesAt: null,
      nextCheckAt: null,
      checks: 0,
      reason: null,
      alerted: false,
      createdAt: now,
      updatedAt: now,
      settledAt: null,
    });
    try {
      await runStatement(this.dataSource, (em) => em.getRepository(InvoiceRefund).insert(row));
      return { claimed: row };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const same = await this.byKey(input.invoiceRecordId, input.idempotencyKey);
      if (same) return { sameKey: same };
      return { inFlight: await this.inFlight(input.invoiceRecordId) };
    }
  }

  /**
   * Moves a row from one of `from` to `patch`; settling (`succeeded`/`failed`) frees the invoice's slot. Reports
   * whether it moved: exactly one caller settles a refund.
   */
  async move(id: string, from: readonly RefundState[], patch: Partial<InvoiceRefund>): Promise<boolean> {
    const now = new Date();
    const settles = patch.state === 'succeeded' || patch.state === 'failed';
    const set: Partial<InvoiceRefund> = {
      ...patch,
      updatedAt: now,
      ...(settles ? { inFlightInvoiceId: null, settledAt: now, nextCheckAt: null } : {}),
    };
    const result = await runStatement(this.dataSource, (em) =>
      em
        .getRepository(InvoiceRefund)
        .createQueryBuilder()
        .update()
        .set(set)
        .where('id = :id', { id })
        .andWhere('state IN (:...from)', { from: [...from] })
        .execute(),
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * Takes an `unknown` row due for a read-back: pushes its next check to `until` only if nobody did meanwhile, so
   * two workers (two app instances) do not read the same row back at once.
   */
  async takeDue(row: InvoiceRefund, until: Date): Promise<boolean> {
    const result = await runStatement(this.dataSource, (em) => {
      const qb = em
        .getRepository(InvoiceRefund)
        .createQueryBuilder()
        .update()
        .set({ nextCheckAt: until, updatedAt: new Date() })
        .where('id = :id AND state = :state', { id: row.id, state: 'unknown' });
      if (row.nextCheckAt) qb.andWhere('next_check_at = :seen', { seen: row.nextCheckAt.toISOString() });
      else qb.andWhere('next_check_at IS NULL');
      return qb.execute();
    });
    return (result.affected ?? 0) > 0;
  }

  /** `unknown` rows whose read-back is due, oldest check first. */
  due(now: Date, limit: number): Promise<InvoiceRefund[]> {
    return this.rows.find({
      where: { state: 'unknown', nextCheckAt: LessThanOrEqual(now.toISOString() as unknown as Date) },
      order: { nextCheckAt: 'ASC' },
      take: limit,
    });
  }

  /** Cents of the invoice's refunds that succeeded, and of those still in flight (counted as spent). */
  async totals(invoiceRecordId: string): Promise<{ succeededCents: number; inFlightCents: number }> {
    const rows = await this.rows.find({
      where: { invoiceRecordId, state: In(['succeeded', ...IN_FLIGHT_STATES]) },
      select: { amountCents: true, state: true },
    });
    let succeededCents = 0;
    let inFlightCents = 0;
    for (const r of rows) {
      if (r.state === 'succeeded') succeededCents += r.amountCents;
      else inFlightCents += r.amountCents;
    }
    return { succeededCents, inFlightCents };
  }
}
