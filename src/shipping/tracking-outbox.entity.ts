import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';
import type { TrackingOutboxStatus } from '../domain/shipping.types';

/**
 * One tracking code to post to the service (A9), written before anything is sent so an outage delays it but never
 * loses it. Unique on (`order_id`, `code`): one row, posted once, per code of an order.
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

  /** Counted when a worker claims the row, so a crash mid-post counts too. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @TimestampColumn('next_attempt_at')
  nextAttemptAt!: Date;

  /** A worker holds the row until then; after it, any worker may take it. */
  @TimestampColumn('locked_until', { nullable: true })
  lockedUntil!: Date | null;

  /** Worker id and claim number. */
  @Column({ name: 'locked_by', type: 'varchar', length: 128, nullable: true })
  lockedBy!: string | null;

  /** Message of the last failure (no secrets: gateway errors carry none). */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /** A gateway error kind (`validation`, ...) or `unknown`: the admin page words it. */
  @Column({ name: 'last_error_kind', type: 'varchar', length: 32, nullable: true })
  lastErrorKind!: string | null;

  /** When the host recorded this code (again): strictly increasing per order, the latest code counts. */
  @TimestampColumn('recorded_at')
  recordedAt!: Date;

  @TimestampColumn('sent_at', { nullable: true })
  sentAt!: Date | null;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('updated_at')
  updatedAt!: Date;
}
