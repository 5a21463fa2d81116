import type { DataSource } from 'typeorm';
import { purgeFinished } from '../core/queue/retention';

/**
 * Deletes finished inbox rows (processed, ignored, dead) whose `processed_at` is older than `retentionMs`, in small
 * batches with a pause between them (`core/queue/retention.ts`; index on state and `processed_at`): the inbox keeps
 * what dedupes the service's retries and what a person may look at, for a bounded time. Pending rows are never
 * touched. Returns how many were deleted.
 */
export function purgeFinishedEntries(
  dataSource: DataSource,
  retentionMs: number,
  stopped: () => boolean = () => false,
): Promise<number> {
  return purgeFinished(
    dataSource,
    {
      table: 'invoice_payments_webhook_inbox',
      finished: "state IN ('processed', 'ignored', 'dead')",
      finishedAt: 'processed_at',
    },
    retentionMs,
    stopped,
  );
}
