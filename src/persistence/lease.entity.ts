import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from './columns';

/**
 * A named lease: which instance runs a singleton job (the reconciliation of open invoices) until when. A crashed
 * holder's lease lapses at `lockedUntil`. One row per job, written with conditional statements (see `named-lease`).
 */
@Entity('invoice_payments_lease')
export class InvoicePaymentsLease {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  /** The instance holding the lease (random per process). */
  @Column({ type: 'varchar', length: 64 })
  holder!: string;

  @TimestampColumn('locked_until')
  lockedUntil!: Date;
}
