/**
 * Events the module emits on `@nestjs/event-emitter`'s bus. Payloads are documented next to each name.
 */
export const InvoicePaymentsEvents = {
  /** A status change was applied. Payload: `PaymentStatusChange`. */
  StatusChanged: 'invoice-payments.status_changed',
  /** Something needs a person (paid after cancel, amount mismatch). Payload: `InvoicePaymentsAlert`. */
  Alert: 'invoice-payments.alert',
  /**
   * A duplicate invoice of an order (a late invoice of an earlier attempt, or the newer one when the late one was
   * paid) was canceled at the service. Payload: `DuplicateInvoiceCanceled`.
   */
  DuplicateCanceled: 'invoice-payments.duplicate_canceled',
  /** A tracking code was posted to the service. Payload: `{ orderId, code, invoiceRecordId }`. */
  TrackingPosted: 'invoice-payments.tracking_posted',
  /** A tracking code could not be posted after the configured attempts. Payload: `{ orderId, code, error }`. */
  TrackingFailed: 'invoice-payments.tracking_failed',
  /**
   * A refund whose answer was lost (`unknown`) was settled: made (`succeeded`) or not made (`failed`). Emitted once,
   * after the ledger row moved. Payload: `RefundSettled`.
   */
  RefundSettled: 'invoice-payments.refund_settled',
} as const;

export interface InvoicePaymentsAlert {
  /**
   * `duplicate_paid`: two invoices of one order were paid, refund one (both are named); `creation_unresolved`: the
   * module could not find out whether an invoice was created for longer than `checkout.unresolvedAlertMs`
   * (resolve it in the admin API); `invoice_number_clash`: the service answered an invoice number another record
   * already holds; `foreign_invoice`: an invoice at the service was matched to this record (by its referrer, or its
   * number with another referrer) but is not the one the module sent (another store's, a staging copy's): left
   * alone, see docs/webhooks.md "Ours means ours"; `tracking_failed`: a tracking code could not be posted for good (dead in the outbox);
   * `implausible_amount`: the service answered an amount that cannot be real (negative, absurd),
   * the answer was refused and nothing of it stored; `refund_unresolved`: a refund's outcome could not be settled
   * from the service's `refunds.total` for longer than `refunds.unresolvedAlertMs` (see docs/refunds.md).
   */
  kind:
    | 'paid_after_cancel'
    | 'amount_mismatch'
    | 'webhook_dead_letter'
    | 'duplicate_paid'
    | 'creation_unresolved'
    | 'invoice_number_clash'
    | 'foreign_invoice'
    | 'tracking_failed'
    | 'implausible_amount'
    | 'refund_unresolved';
  orderId: string | null;
  invoiceRecordId: string | null;
  message: string;
  /** The other invoice the alert is about (`duplicate_paid`: the invoice kept; `invoice_number_clash`: the holder). */
  relatedInvoiceRecordId?: string | null;
}

/** Payload of `invoice-payments.duplicate_canceled`. */
export interface DuplicateInvoiceCanceled {
  orderId: string;
  /** The duplicate, canceled at the service. */
  invoiceRecordId: string;
  gatewayId: string | null;
  /** The order's invoice that was kept (open or paid). */
  keptInvoiceRecordId: string;
  keptGatewayId: string | null;
}

/** Payload of `invoice-payments.refund_settled`: how a refund that was being confirmed ended. */
export interface RefundSettled {
  /** The ledger row (`InvoiceRefund.id`); the Vendure plugin keeps it in its Refund's `metadata.refundId`. */
  refundId: string;
  invoiceRecordId: string;
  gatewayId: string | null;
  /** `succeeded`: the service made it; `failed`: it was not made (nothing was refunded). */
  state: 'succeeded' | 'failed';
  amountCents: number;
  /** How it was decided (the totals read back), for a person. */
  reason: string | null;
}
