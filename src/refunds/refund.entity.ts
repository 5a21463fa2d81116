import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { centsColumn, TimestampColumn } from '../persistence/columns';

/** Where one refund stands. */
export type RefundState =
  /** Row written; the request is about to leave or is on its way. */
  | 'pending'
  /** The request left and its answer was lost (5xx, timeout, dropped connection): settled by reading back. */
  | 'unknown'
  /** The service made the refund (it answered so, or its `refunds.total` shows it). */
  | 'succeeded'
  /** The service refused it, or it provably never happened: no money moved. */
  | 'failed';

/** States in which a refund holds its invoice's in-flight slot. */
export const IN_FLIGHT_STATES: readonly RefundState[] = ['pending', 'unknown'];

/**
 * One refund of an invoice: the ledger row written before the request leaves, so no refund is ever sent without a
 * trace, and none twice.
 *
 * `inFlightInvoiceId` equals `invoiceRecordId` while the refund is `pending` or `unknown` and is `null` once it is
 * settled, and it is unique: the database itself refuses a second refund in flight for an invoice, whichever app
 * instance asks (the same pattern as the invoice's `open_order_id`; a plain unique column, since both SQLite and
 * PostgreSQL let many rows hold `NULL`). `(invoiceRecordId, idempotencyKey)` is unique too: the same key names the
 * same refund forever.
 */
@Entity('invoice_payments_refund')
@Index('IDX_invoice_payments_refund_key', ['invoiceRecordId', 'idempotencyKey'], { unique: true })
@Unique('UQ_invoice_payments_refund_in_flight', ['inFlightInvoiceId'])
export class InvoiceRefund {
  /** Local id (UUID). */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36 })
  invoiceRecordId!: string;

  /** Set to `invoiceRecordId` while in flight (`pending`, `unknown`), `null` once settled; unique. */
  @Column({ name: 'in_flight_invoice_id', type: 'varchar', length: 36, nullable: true })
  inFlightInvoiceId!: string | null;

  @Column({ name: 'amount_cents', type: 'bigint', transformer: centsColumn })
  amountCents!: number;

  /** Who asked: `admin:<actor>`, `provider`, `medusa`, `vendure`... */
  @Column({ name: 'requested_by', type: 'varchar', length: 128 })
  requestedBy!: string;

  /** The caller's key, or one derived from the request (see `RefundService`). */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 128 })
  idempotencyKey!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: RefundState;

  /**
   * The service's `refunds.total` read just before the request left (`null` until then). The refund happened iff
   * the service's total reaches `baselineCents + amountCents`.
   */
  @Column({ name: 'baseline_cents', type: 'bigint', nullable: true, transformer: centsColumn })
  baselineCents!: number | null;

  /** Until then the request could still land at the service: not settled as "not made" before. */
  @TimestampColumn('settles_at', { nullable: true })
  settlesAt!: Date | null;

  /** When to read the invoice back next (`unknown` rows, the settlement worker). */
  @TimestampColumn('next_check_at', { nullable: true })
  nextCheckAt!: Date | null;

  /** Read-backs made so far (backoff). */
  @Column({ name: 'checks', type: 'integer' })
  checks!: number;

  /** Why it failed, or what is unclear while unknown. */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** The alert `refund_unresolved` was raised for it. */
  @Column({ name: 'alerted', type: 'boolean' })
  alerted!: boolean;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('updated_at')
  updatedAt!: Date;

  /** When it became `succeeded` or `failed`. */
  @TimestampColumn('settled_at', { nullable: true })
  settledAt!: Date | null;
}
