import { DataSource } from 'typeorm';
import type { Clock } from '../domain/clock';
import { LeasedRows } from '../core/queue/leased-rows';
import { WebhookInboxEntry } from './webhook-inbox.entity';

// Apart from the entity, which the entity list and the migrations load without Nest or the queue machinery.

/** The inbox's rows under a lease of `leaseMs()` (instances may share the table); a pending row is open. */
export function webhookInboxRows(
  dataSource: DataSource,
  leaseMs: () => number,
  clock: Clock,
): LeasedRows<WebhookInboxEntry> {
  const table = dataSource.getMetadata(WebhookInboxEntry).tableName;
  const open = { sql: (t: string) => `${t}state = 'pending'`, where: { state: 'pending' as const } };
  const columns = { lockedUntil: 'locked_until', attempts: 'attempts', nextAttemptAt: 'next_attempt_at' };
  return new LeasedRows(dataSource, WebhookInboxEntry, { table, open, ...columns }, leaseMs, clock);
}
