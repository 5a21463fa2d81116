import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { centsColumn, TimestampColumn } from '../persistence/columns';

/** `pending`: being sent; `unknown`: its answer was lost; `failed`: provably no money moved. */
export type RefundState = 'pending' | 'unknown' | 'succeeded' | 'failed';

/**
 * One refund: the ledger row written before its request leaves. The unique `inFlightInvoiceId` (null once settled;
 * many NULLs are allowed) makes the database refuse a second refund in flight for an invoice.
 */
@Entity('invoice_payments_refund')
@Index('IDX_invoice_payments_refund_key', ['invoiceRecordId', 'idempotencyKey'], { unique: true })
@Unique('UQ_invoice_payments_refund_in_flight', ['inFlightInvoiceId'])
export class InvoiceRefund {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36 })
  invoiceRecordId!: string;

  @Column({ name: 'in_flight_invoice_id', type: 'varchar', length: 36, nullable: true })
  inFlightInvoiceId!: string | null;

  @Column({ name: 'amount_cents', type: 'bigint', transformer: centsColumn })
  amountCents!: number;

  @Column({ name: 'requested_by', type: 'varchar', length: 128 })
  requestedBy!: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 128 })
  idempotencyKey!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: RefundState;

  /** The service's `refunds.total` just before the request left: the refund happened iff it reaches + amount. */
  @Column({ name: 'baseline_cents', type: 'bigint', nullable: true, transformer: centsColumn })
  baselineCents!: number | null;

  /** Until then the request could still land: not settled as "not made" before. */
  @TimestampColumn('settles_at', { nullable: true })
  settlesAt!: Date | null;

  @TimestampColumn('next_check_at', { nullable: true })
  nextCheckAt!: Date | null;

  @Column({ name: 'checks', type: 'integer' })
  checks!: number;

  /** Why it failed, or what is unclear while unknown. */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** A `refund_unresolved` alert was raised for it. */
  @Column({ name: 'alerted', type: 'boolean' })
  alerted!: boolean;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('updated_at')
  updatedAt!: Date;

  @TimestampColumn('settled_at', { nullable: true })
  settledAt!: Date | null;
}

/** A refund as the admin API shows it; `confirming` while the module confirms with the service whether it was made. */
export type RefundView = ReturnType<typeof refundView>;

export function refundView(row: InvoiceRefund) {
  return {
    id: row.id,
    invoiceRecordId: row.invoiceRecordId,
    amountCents: row.amountCents,
    state: row.state,
    confirming: row.state === 'unknown',
    requestedBy: row.requestedBy,
    idempotencyKey: row.idempotencyKey,
    reason: row.reason,
    nextCheckAt: row.nextCheckAt ? row.nextCheckAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    settledAt: row.settledAt ? row.settledAt.toISOString() : null,
  };
}
