import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';

/** An `InvoicePaymentsEvents.Alert`, kept for the admin page until a person acknowledges it. */
@Entity('invoice_payments_alert')
@Index('IDX_invoice_payments_alert_created', ['createdAt'])
export class InvoicePaymentsAlertRecord {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 32 })
  kind!: string;

  @Column({ name: 'order_id', type: 'varchar', length: 128, nullable: true })
  orderId!: string | null;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36, nullable: true })
  invoiceRecordId!: string | null;

  /** Never a secret: built from ids, amounts and gateway messages. */
  @Column({ type: 'text' })
  message!: string;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('acknowledged_at', { nullable: true })
  acknowledgedAt!: Date | null;
}
