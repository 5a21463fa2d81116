import type { DataSource, ObjectLiteral } from 'typeorm';
import { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import { WebhookInboxEntry } from '../webhooks/webhook-inbox';
import { InvoiceStatusHistory } from '../persistence/invoice.entity';

/** A queue's waiting rows and the age of the oldest, in seconds (0 when none waits). */
export type Waiting = { count: number; oldestAgeSeconds: number };

/** What waits in the queues now (`port`: changes the host was not told yet), for the health check and gauges. */
export type Backlog = Record<'inbox' | 'tracking' | 'port', Waiting> & {
  deadLetters: Record<'inbox' | 'tracking', number>;
};

/** Reads the {@link Backlog} as of `now` (epoch ms): five aggregate queries, each on an index of its table. */
export async function readBacklog(dataSource: DataSource, now: number): Promise<Backlog> {
  const waiting = async (entity: new () => ObjectLiteral, since: string, where: string): Promise<Waiting> => {
    const row = await dataSource
      .getRepository(entity)
      .createQueryBuilder('q')
      .select('COUNT(*)', 'count')
      .addSelect(`MIN(q.${since})`, 'oldest')
      .where(where, { yes: true })
      .getRawOne<{ count: string | number; oldest: string | null }>();
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : NaN;
    return {
      count: Number(row?.count ?? 0),
      oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0,
    };
  };
  const [inbox, tracking, port, deadInbox, deadTracking] = await Promise.all([
    waiting(WebhookInboxEntry, 'received_at', "q.state = 'pending'"),
    waiting(TrackingOutbox, 'recorded_at', "q.status = 'pending'"),
    waiting(InvoiceStatusHistory, 'created_at', 'q.notified_at IS NULL AND q.applied = :yes'),
    dataSource.getRepository(WebhookInboxEntry).countBy({ state: 'dead' }),
    dataSource.getRepository(TrackingOutbox).countBy({ status: 'failed' }),
  ]);
  return { inbox, tracking, port, deadLetters: { inbox: deadInbox, tracking: deadTracking } };
}
