import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';

/**
 * One alert the module raised (`InvoicePaymentsEvents.Alert`: paid after cancel, amount mismatch, dead-lettered
 * webhook...), kept so the admin page can list what needs a person. A person acknowledges it once handled.
 */
@Entity('invoice_payments_alert')
@Index('IDX_invoice_payments_alert_created', ['createdAt'])
export class InvoicePaymentsAlertRecord {
  /** Local id (UUID). */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** The alert's kind (`InvoicePaymentsAlert.kind`). */
  @Column({ type: 'varchar', length: 32 })
  kind!: string;

  @Column({ name: 'order_id', type: 'varchar', length: 128, nullable: true })
  orderId!: string | null;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36, nullable: true })
  invoiceRecordId!: string | null;

  /** What happened, in words (never a secret: built from ids, amounts and gateway messages). */
  @Column({ type: 'text' })
  message!: string;

  @TimestampColumn('created_at')
  createdAt!: Date;

  /** When a person marked it handled; `null` while open. */
  @TimestampColumn('acknowledged_at', { nullable: true })
  acknowledgedAt!: Date | null;
}
