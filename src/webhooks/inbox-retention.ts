import type { DataSource } from 'typeorm';
import { isPostgres, runStatement } from '../core/transaction';
import { queryReturning } from '../core/typeorm-compat';

/** Finished inbox rows deleted per statement, so a purge never holds the table long. */
const PURGE_BATCH = 500;

/**
 * Deletes finished inbox rows (processed, ignored, dead) whose `processed_at` is older than `retentionMs`, a batch
 * at a time (index on state and `processed_at`): the inbox keeps what dedupes the service's retries and what a
 * person may look at, for a bounded time. Pending rows are never touched. Returns how many were deleted.
 */
export async function purgeFinishedEntries(
  dataSource: DataSource,
  retentionMs: number,
  stopped: () => boolean = () => false,
): Promise<number> {
  const cutoff = new Date(Date.now() - retentionMs).toISOString();
  const mark = isPostgres(dataSource) ? '$1' : '?';
  const sql =
    `DELETE FROM invoice_payments_webhook_inbox WHERE id IN (SELECT id FROM invoice_payments_webhook_inbox ` +
    `WHERE state IN ('processed', 'ignored', 'dead') AND processed_at < ${mark} LIMIT ${PURGE_BATCH}) RETURNING id`;
  let total = 0;
  while (!stopped()) {
    const rows = await runStatement(dataSource, (em) => queryReturning(em, sql, [cutoff]));
    total += rows.length;
    if (rows.length < PURGE_BATCH) break;
  }
  return total;
}
