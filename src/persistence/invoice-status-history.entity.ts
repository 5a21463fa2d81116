import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { StatusChangeSource } from '../domain/status-table';
import { TimestampColumn } from './columns';

/** Every status an invoice was reported in, applied or not, with the reason: what the service said, what we did. */
@Entity('invoice_payments_status_history')
@Index('IDX_invoice_payments_status_history_invoice', ['invoiceRecordId'])
@Index('IDX_invoice_payments_status_history_notify', ['notifiedAt'])
export class InvoiceStatusHistory {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36 })
  invoiceRecordId!: string;

  @Column({ name: 'from_code', type: 'integer', nullable: true })
  fromCode!: number | null;

  /** `null` for a row about the attempt's creation rather than a status (an admin's resolution). */
  @Column({ name: 'to_code', type: 'integer', nullable: true })
  toCode!: number | null;

  @Column({ name: 'status_text', type: 'varchar', length: 128, nullable: true })
  statusText!: string | null;

  @Column({ type: 'varchar', length: 16 })
  source!: StatusChangeSource;

  /** `true` when the invoice moved to `toCode`; `false` when the report was recorded and refused. */
  @Column({ type: 'boolean' })
  applied!: boolean;

  /** Why it was refused or flagged (backwards move, unknown code, paid after cancel...). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  note!: string | null;

  /** Alert raised with this change, if any (see `PaymentStatusChange.alert`). */
  @Column({ type: 'varchar', length: 32, nullable: true })
  alert!: string | null;

  /** Applied changes are the host notifications' outbox: set once the port and the event bus had the change. */
  @TimestampColumn('notified_at', { nullable: true })
  notifiedAt!: Date | null;

  @Column({ name: 'notify_attempts', type: 'integer', default: 0 })
  notifyAttempts!: number;

  @Column({ name: 'notify_error', type: 'text', nullable: true })
  notifyError!: string | null;

  /** Until when an instance holds this change's delivery, or a refused change waits for its retry (a lease). */
  @TimestampColumn('notify_locked_until', { nullable: true })
  notifyLockedUntil!: Date | null;

  /** Who made the change when a person did (an admin's resolution); `null` for the module's own reports. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  actor!: string | null;

  @TimestampColumn('created_at')
  createdAt!: Date;
}
