import { setTimeout as sleep } from 'node:timers/promises';
import { Brackets, type DataSource, type EntityTarget, type ObjectLiteral } from 'typeorm';
// Not exported from the root in every TypeORM 0.3 release the peer range allows (0.3.26 lacks it).
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Clock } from '../../domain/clock';
import { dialectOf, runInTransaction, runReturning, runStatement } from '../../persistence/dialect';

/** What a release writes: a value per column, or a function giving the column's new value in SQL. */
export type LeasePatch<T> = { [K in keyof T]?: T[K] | (() => string) };

/** A row to release: as its claim returned it, the lease that claim wrote with it; `{ id }` for one no claim holds. */
export type Held<T extends { id: string }> = Pick<T, 'id'> & Partial<T>;

/** A leased queue table's columns, as named in the database. */
export interface LeasedTable {
  table: string;
  /** A row still to do, as SQL (columns prefixed as asked). */
  open: (prefix: string) => string;
  /** A row is free when it is `NULL` or past. */
  lockedUntil: string;
  attempts?: string;
  nextAttemptAt?: string;
  /** For {@link LeasedRows.claimDue} with a holder; `oneAtATimeBy`: rows sharing its value are held one at a time. */
  batch?: { holder: string; oneAtATimeBy?: string; touched?: string };
}

/** Rows {@link LeasedRows.finishEach} writes in one statement (a few parameters each). */
const FINISH_CHUNK = 500;

/** {@link LeasedRows.finishEach}'s column of the lease each row is released under (no table column is named so). */
const HELD_LEASE = 'held_lease_';

/**
 * Rows of a queue table under a lease: a claim is one conditional `UPDATE … RETURNING`; a release writes only while
 * the row is still open and, for a row as a claim returned it, while `lockedUntil` still holds the very lease text
 * that claim wrote. So a holder whose lease lapsed and was taken over, by another instance or by another claim in
 * this one, writes nothing on the new holder's row.
 */
export class LeasedRows<T extends ObjectLiteral & { id: string }> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entity: EntityTarget<T>,
    private readonly columns: LeasedTable,
    private readonly leaseMs: () => number,
    private readonly clock: Clock,
  ) {}

  /** Takes the row for this holder, or `null` when it is taken or done. */
  async claim(id: string): Promise<T | null> {
    const c = this.columns;
    const now = this.clock.date().toISOString();
    const lease = new Date(this.clock.now() + this.leaseMs()).toISOString();
    const count = c.attempts ? `, ${c.attempts} = ${c.attempts} + 1` : '';
    const sql =
      `UPDATE ${c.table} SET ${c.lockedUntil} = :lease${count} ` +
      `WHERE id = :id AND ${c.open('')} AND (${c.lockedUntil} IS NULL OR ${c.lockedUntil} <= :now) RETURNING *`;
    const rows = await runReturning(this.dataSource, sql, { lease, id, now });
    return rows.length === 0 ? null : this.hydrate(rows[0]);
  }

  /**
   * Claims up to `limit` due rows, oldest first by `orderBy`, for `holder` when given (the table's `batch` columns);
   * concurrent workers take disjoint rows without waiting.
   */
  async claimDue(limit: number, orderBy: string, holder?: string, leaseMs = this.leaseMs()): Promise<T[]> {
    const c = this.columns;
    if (!c.nextAttemptAt) throw new Error(`queue table ${c.table} has no due time`);
    if (holder !== undefined && !c.batch) throw new Error(`queue table ${c.table} has no batch claim`);
    const b = holder === undefined ? undefined : c.batch;
    const now = this.clock.date();
    const set = b ? `, ${b.holder} = :holder${b.touched ? `, ${b.touched} = :now` : ''}` : '';
    const oneAtATime = b?.oneAtATimeBy
      ? `AND NOT EXISTS (SELECT 1 FROM ${c.table} b WHERE b.${b.oneAtATimeBy} = o.${b.oneAtATimeBy} ` +
        `AND b.id <> o.id AND ${c.open('b.')} AND b.${c.lockedUntil} > :now)`
      : '';
    const count = c.attempts ? `, ${c.attempts} = ${c.attempts} + 1` : '';
    const sql = `
      UPDATE ${c.table}
      SET ${c.lockedUntil} = :lease${count}${set}
      WHERE id IN (
        SELECT o.id FROM ${c.table} o
        WHERE ${c.open('o.')}
          AND o.${c.nextAttemptAt} <= :now
          AND (o.${c.lockedUntil} IS NULL OR o.${c.lockedUntil} <= :now)
          ${oneAtATime}
        ORDER BY ${orderBy}
        LIMIT :limit
        ${dialectOf(this.dataSource).skipLocked}
      ) RETURNING *`;
    const lease = new Date(now.getTime() + leaseMs).toISOString();
    const rows = await runReturning(this.dataSource, sql, { holder, lease, now: now.toISOString(), limit });
    return rows.map((row) => this.hydrate(row));
  }

  /** Writes `patch` on a row this holder claimed and releases the lease (only while the row is open and its own). */
  finish(row: Held<T>, patch: LeasePatch<T>): Promise<void> {
    return this.finishAll([row], patch);
  }

  /** {@link finish} for many rows in one statement; a function in `patch` is the column's value in SQL. */
  finishAll(rows: Array<Held<T>>, patch: LeasePatch<T>): Promise<void> {
    const metadata = this.dataSource.getMetadata(this.entity);
    const shared: Record<string, unknown> = {};
    for (const [property, value] of Object.entries(patch)) {
      const column = metadata.findColumnWithPropertyName(property);
      if (!column) throw new Error(`queue table ${this.columns.table} has no property ${property}`);
      const prepared = (v: unknown) => this.dataSource.driver.preparePersistentValue(v, column);
      shared[column.databaseName] = typeof value === 'function' ? value : prepared(value);
    }
    return this.finishEach(
      rows.map((row) => ({ row })),
      shared,
    );
  }

  /**
   * {@link finishAll} with values of each row's own, one statement per {@link FINISH_CHUNK} rows: the row and its
   * columns' values (named as in the database, the same columns in every row), and the values all rows take.
   */
  async finishEach(
    rows: Array<{ row: Held<T> } & Record<string, unknown>>,
    shared: Record<string, unknown>,
  ): Promise<void> {
    const { parameter } = dialectOf(this.dataSource);
    const { table, lockedUntil, open } = this.columns;
    for (let i = 0; i < rows.length; i += FINISH_CHUNK) {
      const chunk = rows.slice(i, i + FINISH_CHUNK);
      const values: unknown[] = [];
      const set = Object.entries(shared).map(([column, value]) => {
        const sql = typeof value === 'function' ? (value as () => string)() : parameter(values.push(value));
        return `${column} = ${sql}`;
      });
      const own = Object.keys(chunk[0]).filter((column) => column !== 'row');
      set.push(...own.map((column) => `${column} = v.${column}`));
      // Released, unless the patch holds the row on (a retry's wait).
      if (!(lockedUntil in shared)) set.push(`${lockedUntil} = NULL`);
      // The lease a row is released under travels with it: `NULL` for a row no claim holds.
      const names = ['id', ...own, HELD_LEASE];
      const selects = chunk.map((each) => {
        const cells = [each.row.id, ...own.map((c) => each[c]), this.leaseOf(each.row)];
        return `SELECT ${cells.map((v, n) => `${parameter(values.push(v))} AS ${names[n]}`).join(', ')}`;
      });
      const sql =
        `UPDATE ${table} SET ${set.join(', ')} FROM (${selects.join(' UNION ALL ')}) v ` +
        `WHERE ${table}.id = v.id AND ${open(`${table}.`)} ` +
        `AND (v.${HELD_LEASE} IS NULL OR ${table}.${lockedUntil} = v.${HELD_LEASE})`;
      await runStatement(this.dataSource, (em) => em.query(sql, values));
    }
  }

  /** The lease text `row` carries, as its claim wrote it (ISO text both ways), or `null` for a row no claim holds. */
  private leaseOf(row: Held<T>): string | null {
    const { table, lockedUntil } = this.columns;
    const column = this.dataSource.getMetadata(this.entity).findColumnWithDatabaseName(lockedUntil);
    if (!column) throw new Error(`queue table ${table} has no column ${lockedUntil}`);
    return (column.getEntityValue(row, true) as string | null | undefined) ?? null;
  }

  private hydrate(row: Record<string, unknown>): T {
    const metadata = this.dataSource.getMetadata(this.entity);
    const entity = metadata.create() as T;
    for (const column of metadata.columns) {
      const transformer = column.transformer;
      const value = row[column.databaseName];
      column.setEntityValue(
        entity,
        transformer && !Array.isArray(transformer) ? transformer.from(value) : value,
      );
    }
    return entity;
  }
}

/** An admin puts a row back in the queue with `patch`, only while still in `from` and no worker holds its lease. */
export async function requeueUnleased<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
  id: string,
  column: 'state' | 'status',
  from: string,
  now: Date,
  patch: QueryDeepPartialEntity<T>,
): Promise<boolean> {
  const result = await runInTransaction(dataSource, (em) =>
    em
      .getRepository(entity)
      .createQueryBuilder()
      .update()
      .set(patch)
      .where(`id = :id AND ${column} = :from`, { id, from })
      .andWhere(
        new Brackets((w) =>
          w.where('locked_until IS NULL').orWhere('locked_until <= :now', { now: now.toISOString() }),
        ),
      )
      .execute(),
  );
  return (result.affected ?? 0) > 0;
}

/** Rows deleted per statement: each holds the table and one pooled connection only briefly. */
const PURGE_BATCH = 500;

/** Between two batches: a backlog is purged at about 5,000 rows a second, leaving room to the store and autovacuum. */
const PURGE_PAUSE_MS = 100;

/** One retention rule of a queue table: its finished rows whose `finishedAt` column is older than a cutoff. */
export interface RetentionRule {
  table: string;
  /** SQL: which rows are finished (`state IN ('processed', 'ignored', 'dead')`). */
  finished: string;
  /** The ISO-8601 text column the cutoff compares with (indexed together with the finished condition's column). */
  finishedAt: string;
}

/**
 * Deletes the rule's rows finished more than `retentionMs` before `now` (epoch ms), in paced batches until none is
 * left or `stopped()`.
 */
export async function purgeFinished(
  dataSource: DataSource,
  rule: RetentionRule,
  retentionMs: number,
  now: number,
  stopped: () => boolean = () => false,
): Promise<number> {
  const cutoff = new Date(now - retentionMs).toISOString();
  const sql =
    `DELETE FROM ${rule.table} WHERE id IN (SELECT id FROM ${rule.table} ` +
    `WHERE ${rule.finished} AND ${rule.finishedAt} < :cutoff LIMIT ${PURGE_BATCH}) RETURNING id`;
  let total = 0;
  while (!stopped()) {
    const rows = await runReturning(dataSource, sql, { cutoff });
    total += rows.length;
    if (rows.length < PURGE_BATCH) break;
    await sleep(PURGE_PAUSE_MS);
  }
  return total;
}
