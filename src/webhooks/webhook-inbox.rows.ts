import type { FactoryProvider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LeasedRows } from '../core/queue/leased-rows';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { WebhookInboxEntry } from './webhook-inbox.entity';

// Apart from the entity, which the entity list and the migrations load without Nest or the queue machinery.

/** Injection token of the inbox's {@link LeasedRows}, which the processor and the confirmation share. */
export const WEBHOOK_INBOX_ROWS = Symbol('INVOICE_PAYMENTS_WEBHOOK_INBOX_ROWS');

/** The inbox's rows under a lease of `leaseMs()` (instances may share the table); a pending row is open. */
export function webhookInboxRows(
  dataSource: DataSource,
  leaseMs: () => number,
): LeasedRows<WebhookInboxEntry> {
  const table = dataSource.getMetadata(WebhookInboxEntry).tableName;
  const open = { sql: (t: string) => `${t}state = 'pending'`, where: { state: 'pending' as const } };
  const columns = { lockedUntil: 'locked_until', attempts: 'attempts', nextAttemptAt: 'next_attempt_at' };
  return new LeasedRows(dataSource, WebhookInboxEntry, { table, open, ...columns }, leaseMs);
}

/** {@link WEBHOOK_INBOX_ROWS} under the lease of `webhooks.inbox.leaseMs`. */
export const webhookInboxRowsProvider: FactoryProvider<LeasedRows<WebhookInboxEntry>> = {
  provide: WEBHOOK_INBOX_ROWS,
  inject: [DataSource, WEBHOOKS_OPTIONS],
  useFactory: (dataSource: DataSource, options: ResolvedWebhooksOptions) =>
    webhookInboxRows(dataSource, () => options.inbox.leaseMs),
};
