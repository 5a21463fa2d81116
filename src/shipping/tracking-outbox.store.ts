import { DataSource } from 'typeorm';
import { isPostgres } from '../core/transaction';
import { escapeQuery } from '../core/typeorm-compat';
import { TRACKING_OUTBOX_TABLE } from './constants';
import { TrackingOutbox } from './tracking-outbox.entity';

/**
 * The worker's side of the outbox table: claim due rows, hold them, settle them. Every write that follows a claim is
 * conditional on the claim (`locked_by`), so a worker whose claim lapsed and was taken over cannot overwrite the
 * outcome recorded by the worker that took over.
 */
export class TrackingOutboxStore {
  private readonly postgres: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.postgres = isPostgres(dataSource);
  }

  /**
   * Claims up to `limit` due rows for `claim` until `leaseMs` from now, and counts the attempt.
   *
   * One statement, hence one transaction. On PostgreSQL the inner `SELECT ... FOR UPDATE SKIP LOCKED` makes
   * concurrent workers take disjoint rows without waiting for each other: a row another worker is claiming is
   * skipped, and once claimed its lease keeps it out of later claims. SQLite runs one worker, and serializes writers.
   *
   * A row is not claimed while another row of the same order is held: the order's codes reach the service one at a
   * time, in the order they were recorded.
   */
  async claim(claim: string, limit: number, leaseMs: number): Promise<TrackingOutbox[]> {
    const now = new Date();
    const sql = `
      UPDATE ${TRACKING_OUTBOX_TABLE}
      SET locked_by = :claim, locked_until = :lease, attempts = attempts + 1, updated_at = :now
      WHERE id IN (
        SELECT o.id FROM ${TRACKING_OUTBOX_TABLE} o
        WHERE o.status = 'pending'
          AND o.next_attempt_at <= :now
          AND (o.locked_until IS NULL OR o.locked_until <= :now)
          AND NOT EXISTS (
            SELECT 1 FROM ${TRACKING_OUTBOX_TABLE} b
            WHERE b.order_id = o.order_id AND b.id <> o.id AND b.status = 'pending' AND b.locked_until > :now
          )
        ORDER BY o.next_attempt_at, o.recorded_at
        LIMIT :limit
        ${this.postgres ? 'FOR UPDATE SKIP LOCKED' : ''}
      )`;
    await this.run(sql, { claim, lease: iso(now.getTime() + leaseMs), now: now.toISOString(), limit });
    return this.repo.find({ where: { lockedBy: claim }, order: { nextAttemptAt: 'ASC', recordedAt: 'ASC' } });
  }

  /** Extends the claim on one row before posting it; `false` when the row is no longer this claim's to post. */
  async renew(row: TrackingOutbox, claim: string, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    return this.settle(row, claim, { lockedUntil: new Date(now + leaseMs), updatedAt: new Date(now) }, true);
  }

  /** A newer code was recorded for the row's order: the row is never posted. */
  async hasNewerCode(row: TrackingOutbox): Promise<boolean> {
    const count = await this.repo
      .createQueryBuilder('o')
      .where('o.order_id = :orderId AND o.id <> :id', { orderId: row.orderId, id: row.id })
      // Two codes recorded at the same instant (by two processes): the id decides, the same way for every worker.
      .andWhere('(o.recorded_at > :recordedAt OR (o.recorded_at = :recordedAt AND o.id > :id))', {
        recordedAt: row.recordedAt.toISOString(),
      })
      .getCount();
    return count > 0;
  }

  /**
   * Writes `fields` on the row if `claim` still holds it (and, with `keepClaim`, keeps holding it; otherwise the
   * claim is released). Returns whether the row was this claim's.
   */
  async settle(
    row: TrackingOutbox,
    claim: string,
    fields: Partial<TrackingOutbox>,
    keepClaim = false,
  ): Promise<boolean> {
    const release = keepClaim ? {} : { lockedBy: null, lockedUntil: null };
    const result = await this.repo
      .createQueryBuilder()
      .update(TrackingOutbox)
      .set({ updatedAt: new Date(), ...fields, ...release })
      .where('id = :id AND locked_by = :claim AND status = :pending', {
        id: row.id,
        claim,
        pending: 'pending',
      })
      .execute();
    return result.affected === 1;
  }

  /** Hands rows back untouched (the worker is stopping): the attempt counted by the claim did not happen. */
  async release(rows: TrackingOutbox[], claim: string): Promise<void> {
    for (const row of rows) {
      await this.settle(row, claim, { attempts: row.attempts - 1 });
    }
  }

  private get repo() {
    return this.dataSource.getRepository(TrackingOutbox);
  }

  private async run(sql: string, params: Record<string, unknown>): Promise<void> {
    const [query, values] = escapeQuery(this.dataSource, sql, params);
    await this.dataSource.query(query, values);
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
