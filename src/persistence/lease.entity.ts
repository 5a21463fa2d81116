import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from './columns';

/** Which instance runs a singleton job until when; a crashed holder's lease lapses at `lockedUntil`. */
@Entity('invoice_payments_lease')
export class InvoicePaymentsLease {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 64 })
  holder!: string;

  @TimestampColumn('locked_until')
  lockedUntil!: Date;
}
