import type { DataSource, ObjectLiteral } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';

/** A queue's waiting rows and the age of the oldest, in seconds (0 when none waits). */
export interface Waiting {
  count: number;
  oldestAgeSeconds: number;
}

/** What waits in the module's queues now: read for the health check and the gauges alike. */
export interface Backlog {
  inbox: Waiting;
  tracking: Waiting;
  /** Applied status changes the host's port has not been told yet. */
  port: Waiting;
  deadLetters: { inbox: number; tracking: number };
}

/** Reads the {@link Backlog}: five aggregate queries, each on an index of its table. */
export async function readBacklog(dataSource: DataSource): Promise<Backlog> {
  const now = Date.now();
  const [inbox, tracking, port, deadInbox, deadTracking] = await Promise.all([
    waiting(dataSource, WebhookInboxEntry, 'received_at', 'state', 'pending', now),
    waiting(dataSource, TrackingOutbox, 'recorded_at', 'status', 'pending', now),
    waitingForPort(dataSource, now),
    countWhere(dataSource, WebhookInboxEntry, 'state', 'dead'),
    countWhere(dataSource, TrackingOutbox, 'status', 'failed'),
  ]);
  return { inbox, tracking, port, deadLetters: { inbox: deadInbox, tracking: deadTracking } };
}

async function waiting<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: new () => T,
  since: string,
  column: string,
  value: string,
  now: number,
): Promise<Waiting> {
  const row = await dataSource
    .getRepository(entity)
    .createQueryBuilder('q')
    .select('COUNT(*)', 'count')
    .addSelect(`MIN(q.${since})`, 'oldest')
    .where(`q.${column} = :value`, { value })
    .getRawOne<{ count: string | number; oldest: string | null }>();
  return waitingOf(row, now);
}

async function waitingForPort(dataSource: DataSource, now: number): Promise<Waiting> {
  const row = await dataSource
    .getRepository(InvoiceStatusHistory)
    .createQueryBuilder('h')
    .select('COUNT(*)', 'count')
    .addSelect('MIN(h.created_at)', 'oldest')
    .where('h.notified_at IS NULL')
    .andWhere('h.applied = :applied', { applied: true })
    .getRawOne<{ count: string | number; oldest: string | null }>();
  return waitingOf(row, now);
}

async function countWhere<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: new () => T,
  column: string,
  value: string,
): Promise<number> {
  return dataSource
    .getRepository(entity)
    .createQueryBuilder('q')
    .where(`q.${column} = :value`, { value })
    .getCount();
}

function waitingOf(row: { count: string | number; oldest: string | null } | undefined, now: number): Waiting {
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : NaN;
  return {
    count: Number(row?.count ?? 0),
    oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0,
  };
}
