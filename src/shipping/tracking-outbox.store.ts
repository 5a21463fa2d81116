import { DataSource, Repository } from 'typeorm';
import type { Clock } from '../domain/clock';
import { LeasedRows, purgeFinished } from '../core/queue/leased-rows';
import { TrackingOutbox } from './tracking-outbox.entity';

/**
 * The worker's side of the outbox: claim due rows, hold them, finish them. Every write after a claim is conditional
 * on it (`locked_by`), so a worker whose claim lapsed cannot overwrite the outcome of the worker that took over.
 */
export class TrackingOutboxStore {
  private readonly rows: LeasedRows<TrackingOutbox>;
  private readonly repo: Repository<TrackingOutbox>;
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.repo = dataSource.getRepository(TrackingOutbox);
    this.table = dataSource.getMetadata(TrackingOutbox).tableName;
    this.rows = new LeasedRows(
      dataSource,
      TrackingOutbox,
      {
        table: this.table,
        open: (t) => `${t}status = 'pending'`,
        lockedUntil: 'locked_until',
        attempts: 'attempts',
        nextAttemptAt: 'next_attempt_at',
        batch: { holder: 'locked_by', oneAtATimeBy: 'order_id', touched: 'updated_at' },
      },
      () => 0, // each claim says its lease (the worker's `leaseMs`)
      clock,
    );
  }

  /** Claims up to `limit` due rows and counts the attempt; an order's codes are claimed one at a time, in order. */
  async claim(claim: string, limit: number, leaseMs: number): Promise<TrackingOutbox[]> {
    // The statement returns its rows unordered.
    return (await this.rows.claimDue(limit, 'o.next_attempt_at, o.recorded_at', claim, leaseMs)).sort(
      (a, b) =>
        a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() ||
        a.recordedAt.getTime() - b.recordedAt.getTime(),
    );
  }

  /** Extends the claim on one row before posting it; `false` when the row is no longer this claim's to post. */
  async renew(row: TrackingOutbox, claim: string, leaseMs: number): Promise<boolean> {
    // `updatedAt` is written too, as on every write of a held row.
    return this.writeHeld(row, claim, { lockedUntil: new Date(this.clock.now() + leaseMs) }, true);
  }

  /** A newer code was recorded for the row's order: the row is never posted. */
  async hasNewerCode(row: TrackingOutbox): Promise<boolean> {
    return (
      this.repo
        .createQueryBuilder('o')
        .where('o.order_id = :orderId AND o.id <> :id', { orderId: row.orderId, id: row.id })
        // Two codes recorded at the same instant (by two processes): the id decides, the same way for every worker.
        .andWhere('(o.recorded_at > :recordedAt OR (o.recorded_at = :recordedAt AND o.id > :id))', {
          recordedAt: row.recordedAt.toISOString(),
        })
        .getExists()
    );
  }

  /** Writes `fields` if `claim` still holds the row, releasing it unless `keepClaim`; `false` when it did not. */
  async writeHeld(row: TrackingOutbox, claim: string, fields: Partial<TrackingOutbox>, keepClaim = false) {
    const release = keepClaim ? {} : { lockedBy: null, lockedUntil: null };
    const held = { id: row.id, lockedBy: claim, status: 'pending' as const };
    const result = await this.repo.update(held, { updatedAt: this.clock.date(), ...fields, ...release });
    return result.affected === 1;
  }

  /** Hands rows back untouched (the worker is stopping): the attempt counted by the claim did not happen. */
  async release(rows: TrackingOutbox[], claim: string): Promise<void> {
    for (const row of rows) await this.writeHeld(row, claim, { attempts: row.attempts - 1 });
  }

  /** Deletes rows sent more than `retentionMs` ago; returns how many. */
  purgeSent(retentionMs: number, stopped: () => boolean): Promise<number> {
    const rule = { table: this.table, finished: "status = 'sent'", finishedAt: 'sent_at' };
    return purgeFinished(this.dataSource, rule, retentionMs, this.clock.now(), stopped);
  }
}
