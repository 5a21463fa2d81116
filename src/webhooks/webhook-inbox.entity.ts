import { randomUUID } from 'node:crypto';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { clip } from '../domain/text-and-days';
import type { WebhookDelivery } from '../gateway/webhook.reader';
import { TimestampColumn } from '../persistence/columns';

/** `ignored`: nothing to apply, or not this store's invoice; `dead`: given up, alerted, kept for a person. */
export type WebhookInboxState = 'pending' | 'processed' | 'ignored' | 'dead';

/** What a pending entry waits for besides its due time: its invoice's turn to be looked up, or a record of it. */
export type WebhookInboxWaitingFor = 'lookup' | 'record';

/** Every taken webhook delivery, written before it is acknowledged; retries share its unique `dedupeKey`. */
@Entity('invoice_payments_webhook_inbox')
@Index('IDX_invoice_payments_webhook_inbox_due', ['state', 'nextAttemptAt'])
@Index('IDX_invoice_payments_webhook_inbox_invoice', ['gatewayId', 'state'])
@Index('IDX_invoice_payments_webhook_inbox_done', ['state', 'processedAt'])
@Index('IDX_invoice_payments_webhook_inbox_list', ['state', 'receivedAt', 'id'])
export class WebhookInboxEntry {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** `delivery:<delivery_id>` or `hash:<sha256>` (dedupeKeyOf): the service's retries share it. */
  @Column({ name: 'dedupe_key', type: 'varchar', length: 160, unique: true })
  dedupeKey!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  event!: string | null;

  @Column({ name: 'delivery_id', type: 'varchar', length: 128, nullable: true })
  deliveryId!: string | null;

  @Column({ name: 'webhook_id', type: 'varchar', length: 128, nullable: true })
  webhookId!: string | null;

  @Column({ name: 'gateway_id', type: 'varchar', length: 128, nullable: true })
  gatewayId!: string | null;

  /** Finds the record before the checkout stored `gatewayId`. */
  @Column({ type: 'varchar', length: 160, nullable: true })
  referrer!: string | null;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  /** As the service wrote it (service time): part of the hash dedupe key. */
  @Column({ name: 'sent_at', type: 'varchar', length: 32, nullable: true })
  sentAt!: string | null;

  /** JSON; card number, token and bin redacted. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: WebhookInboxState;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @TimestampColumn('next_attempt_at', { nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ name: 'waiting_for', type: 'varchar', length: 16, nullable: true })
  waitingFor!: WebhookInboxWaitingFor | null;

  /** So a crashed processor's claim lapses. */
  @TimestampColumn('locked_until', { nullable: true })
  lockedUntil!: Date | null;

  /** Never a secret. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  outcome!: string | null;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36, nullable: true })
  invoiceRecordId!: string | null;

  @TimestampColumn('received_at')
  receivedAt!: Date;

  @TimestampColumn('processed_at', { nullable: true })
  processedAt!: Date | null;
}

/**
 * A taken delivery's new row in `state`, its texts clipped to their columns; a pending one due at `dueAt`, waiting
 * for its invoice's turn to be looked up, or due `now` (`null`).
 */
export function inboxEntryOf(
  delivery: WebhookDelivery,
  headerWebhookId: string | null,
  state: 'pending' | 'ignored',
  dueAt: Date | null,
  now: Date,
): WebhookInboxEntry {
  const invoice = delivery.invoice;
  return Object.assign(new WebhookInboxEntry(), {
    id: randomUUID(),
    dedupeKey: delivery.dedupeKey,
    event: clip(delivery.event, 64),
    deliveryId: clip(delivery.deliveryId, 128),
    webhookId: clip(delivery.webhookId ?? headerWebhookId, 128),
    gatewayId: clip(invoice?.id ?? null, 128),
    referrer: clip(invoice?.referrer ?? null, 160),
    statusCode: invoice?.statusCode ?? null,
    sentAt: clip(delivery.sentAt, 32),
    payload: JSON.stringify(delivery.payload ?? {}),
    state,
    attempts: 0,
    nextAttemptAt: state === 'pending' ? (dueAt ?? now) : null,
    waitingFor: state === 'pending' && dueAt ? 'lookup' : null,
    lockedUntil: null,
    lastError: null,
    outcome: state === 'ignored' ? 'test delivery without an invoice' : null,
    invoiceRecordId: null,
    receivedAt: now,
    processedAt: state === 'pending' ? null : now,
  });
}
