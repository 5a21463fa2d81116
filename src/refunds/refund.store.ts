import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, Not, Repository } from 'typeorm';
import { LeasedRows } from '../core/queue/leased-rows';
import { CLOCK, type Clock } from '../domain/clock';
import { runStatement } from '../persistence/dialect';
import { isUniqueViolation } from '../core/invoice-record.store';
import { InvoiceRefund, RefundState } from './refund.entity';
import { countRefund } from '../core/otel';
import { sumCents } from '../gateway/money';

/** How long a row taken for a read-back is left to its worker before another may take it. */
const TAKE_MS = 60_000;

type NewRefund = Pick<InvoiceRefund, 'invoiceRecordId' | 'amountCents' | 'requestedBy' | 'idempotencyKey'>;

type ClaimResult =
  { claimed: InvoiceRefund } | { sameKey: InvoiceRefund } | { inFlight: InvoiceRefund | null };

/** The refund ledger; every write is one statement (an insert claiming the slot, or a compare-and-set). */
@Injectable()
export class RefundStore {
  private readonly queue: LeasedRows<InvoiceRefund>;
  private readonly rows: Repository<InvoiceRefund>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.rows = dataSource.getRepository(InvoiceRefund);
    this.queue = new LeasedRows(
      dataSource,
      InvoiceRefund,
      {
        table: dataSource.getMetadata(InvoiceRefund).tableName,
        open: (t) => `${t}state = 'unknown'`,
        // The next read-back is the lease too: a worker takes a row by moving it forward.
        lockedUntil: 'next_check_at',
        nextAttemptAt: 'next_check_at',
      },
      () => TAKE_MS,
      clock,
    );
  }

  /** The row as stored now (`row` itself when it is gone). */
  async reread(row: InvoiceRefund): Promise<InvoiceRefund> {
    return (await this.rows.findOneBy({ id: row.id })) ?? row;
  }

  byKey(invoiceRecordId: string, idempotencyKey: string): Promise<InvoiceRefund | null> {
    return this.rows.findOneBy({ invoiceRecordId, idempotencyKey });
  }

  inFlight(invoiceRecordId: string): Promise<InvoiceRefund | null> {
    return this.rows.findOneBy({ inFlightInvoiceId: invoiceRecordId });
  }

  list(invoiceRecordId: string): Promise<InvoiceRefund[]> {
    return this.rows.find({ where: { invoiceRecordId }, order: { createdAt: 'DESC', id: 'ASC' }, take: 200 });
  }

  /** The latest refund of this invoice and amount since `since` that did not fail. */
  latestSimilar(invoiceRecordId: string, amountCents: number, since: Date, except?: string) {
    const query = this.rows
      .createQueryBuilder('r')
      .where('r.invoiceRecordId = :invoiceRecordId', { invoiceRecordId })
      .andWhere('r.amountCents = :amountCents', { amountCents })
      .andWhere('r.createdAt >= :since', { since: since.toISOString() })
      .andWhere('r.state != :failed', { failed: 'failed' });
    if (except) query.andWhere('r.id != :except', { except });
    return query.orderBy('r.createdAt', 'DESC').getOne();
  }

  /** The unique slot and key decide between callers. */
  async claim(input: NewRefund): Promise<ClaimResult> {
    const now = this.clock.date();
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
      return same ? { sameKey: same } : { inFlight: await this.inFlight(input.invoiceRecordId) };
    }
  }

  /** Compare-and-set on `from`, so exactly one caller settles; settling frees the slot. */
  async move(id: string, from: readonly RefundState[], patch: Partial<InvoiceRefund>): Promise<boolean> {
    const now = this.clock.date();
    const settles = patch.state === 'succeeded' || patch.state === 'failed';
    const set: Partial<InvoiceRefund> = {
      ...patch,
      updatedAt: now,
      ...(settles ? { inFlightInvoiceId: null, settledAt: now, nextCheckAt: null } : {}),
    };
    const result = await runStatement(this.dataSource, (em) =>
      em.getRepository(InvoiceRefund).update({ id, state: In([...from]) }, set),
    );
    const moved = (result.affected ?? 0) > 0;
    countRefund(patch.state, moved);
    return moved;
  }

  /** Moves due rows' next check `TAKE_MS` ahead in one statement, so two workers never read one row back at once. */
  takeDue(limit: number): Promise<InvoiceRefund[]> {
    return this.queue.claimDue(limit, 'o.next_check_at');
  }

  async totals(invoiceRecordId: string): Promise<{ succeededCents: number; inFlightCents: number }> {
    const rows = await this.rows.find({
      where: { invoiceRecordId, state: Not<RefundState>('failed') },
      select: { amountCents: true, state: true },
    });
    const sum = (settled: boolean) =>
      sumCents(rows.filter((r) => (r.state === 'succeeded') === settled).map((r) => r.amountCents));
    return { succeededCents: sum(true), inFlightCents: sum(false) };
  }
}
