import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { runStatement } from '../../persistence/dialect';
import { escapeQuery, queryReturning } from '../typeorm-compat';

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

/** Deletes the rule's rows finished more than `retentionMs` ago, in paced batches until none is left or `stopped()`. */
export async function purgeFinished(
  dataSource: DataSource,
  rule: RetentionRule,
  retentionMs: number,
  stopped: () => boolean = () => false,
): Promise<number> {
  const cutoff = new Date(Date.now() - retentionMs).toISOString();
  const [sql, values] = escapeQuery(
    dataSource,
    `DELETE FROM ${rule.table} WHERE id IN (SELECT id FROM ${rule.table} ` +
      `WHERE ${rule.finished} AND ${rule.finishedAt} < :cutoff LIMIT ${PURGE_BATCH}) RETURNING id`,
    { cutoff },
  );
  let total = 0;
  while (!stopped()) {
    const rows = await runStatement(dataSource, (em) => queryReturning(em, sql, values));
    total += rows.length;
    if (rows.length < PURGE_BATCH) break;
    await sleep(PURGE_PAUSE_MS);
  }
  return total;
}
