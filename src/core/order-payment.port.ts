import type { StatusReportSource } from './status-sources';
import type { OrderPaymentStatus, PaymentSessionStatus } from './status-table';

/** Injection token of the host's {@link OrderPaymentPort}. */
export const ORDER_PAYMENT_PORT = Symbol('INVOICE_PAYMENTS_ORDER_PAYMENT_PORT');

/** One side of a status change. */
export interface PaymentStatusSnapshot {
  code: number;
  text: string | null;
  sessionStatus: PaymentSessionStatus;
  orderPaymentStatus: OrderPaymentStatus;
}

/** What the module tells the host when an invoice's status moves. */
export interface PaymentStatusChange {
  orderId: string;
  /** The module's local invoice id. */
  invoiceRecordId: string;
  /** The service's invoice number. */
  gatewayId: string | null;
  method: 'pix' | 'billet' | 'card';
  /** `null` when the invoice had no status yet. */
  previous: PaymentStatusSnapshot | null;
  current: PaymentStatusSnapshot;
  /** What reported the change: `create`, `operation`, `webhook`, `sweep` or `provider` (see `StatusReportSource`). */
  source: StatusReportSource;
  /**
   * Set when the change needs a person: `paid_after_cancel` means money arrived for a canceled invoice and must be
   * returned.
   */
  alert?: 'paid_after_cancel' | 'amount_mismatch';
  /**
   * Set when this invoice is a duplicate of the order's invoice in that record (a late invoice of an earlier
   * attempt, or the one replaced by a paid late invoice): its changes do not move the order, which follows the
   * other invoice.
   */
  duplicateOf?: string;
  occurredAt: Date;
}

/**
 * Implemented by the host to learn what happens to its orders' payments. Each applied status change is delivered
 * exactly once, in order per invoice. Throwing makes the module retry the delivery later, so the implementation
 * must be idempotent on (`invoiceRecordId`, `current.code`).
 *
 * Register it with `InvoicePaymentsModule.forRoot({ ..., orderPort: MyOrderPort })` or provide
 * {@link ORDER_PAYMENT_PORT} yourself.
 */
export interface OrderPaymentPort {
  onPaymentStatusChanged(change: PaymentStatusChange): Promise<void>;
}
