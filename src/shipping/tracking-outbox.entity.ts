import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';
import type { TrackingOutboxStatus } from './types';

/**
 * One tracking code to post to the service (A9). The row is written before anything is sent, so a crash or an
 * outage of the service delays the code but never loses it; the worker posts it and records the outcome.
 *
 * (`order_id`, `code`) is unique: the same code for the same order is one row, posted once. A changed code is a
 * new row, and older rows of the order still waiting are superseded so a stale code is never posted after a
 * newer one.
 */
@Entity('invoice_payments_tracking_outbox')
@Unique('UQ_invoice_payments_tracking_outbox_order_code', ['orderId', 'code'])
@Index('IDX_invoice_payments_tracking_outbox_due', ['status', 'nextAttemptAt'])
@Index('IDX_invoice_payments_tracking_outbox_sent', ['status', 'sentAt'])
@Index('IDX_invoice_payments_tracking_outbox_list', ['status', 'recordedAt', 'id'])
export class TrackingOutbox {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'order_id', type: 'varchar', length: 128 })
  orderId!: string;

  @Column({ type: 'varchar', length: 64 })
  code!: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  carrier!: string | null;

  @Column({ type: 'text', nullable: true })
  url!: string | null;

  /** The paid invoice the code is attached to (`InvoiceRecord.id`). */
  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36 })
  invoiceRecordId!: string;

  /** That invoice's `invoice_id` at the service: the key of the tracking operation. */
  @Column({ name: 'gateway_invoice_id', type: 'varchar', length: 128 })
  gatewayInvoiceId!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: TrackingOutboxStatus;

  /** Attempts started so far (counted when a worker claims the row, so a crash mid-post counts too). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @TimestampColumn('next_attempt_at')
  nextAttemptAt!: Date;

  /** A worker holds the row until then; after it, the claim has lapsed (the worker died) and any worker may take it. */
  @TimestampColumn('locked_until', { nullable: true })
  lockedUntil!: Date | null;

  /** The claim that holds the row: worker id and claim number. */
  @Column({ name: 'locked_by', type: 'varchar', length: 128, nullable: true })
  lockedBy!: string | null;

  /** Message of the last failure (no secrets: gateway errors carry none). */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /** Kind of the last failure (a gateway error kind, e.g. `validation`, or `unknown`): the admin page words it. */
  @Column({ name: 'last_error_kind', type: 'varchar', length: 32, nullable: true })
  lastErrorKind!: string | null;

  /**
   * When the host recorded this code (again): orders the codes of one order, the latest being the one that counts.
   * Strictly increasing per order, even within one millisecond.
   */
  @TimestampColumn('recorded_at')
  recordedAt!: Date;

  @TimestampColumn('sent_at', { nullable: true })
  sentAt!: Date | null;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('updated_at')
  updatedAt!: Date;
}
