import type { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';

/** Events the module emits on `@nestjs/event-emitter`'s bus, each with its payload. */
export const InvoicePaymentsEvents = {
  /** A status change was applied. Payload: `PaymentStatusChange`. */
  StatusChanged: 'invoice-payments.status_changed',
  /** Something needs a person (paid after cancel, amount mismatch). Payload: `InvoicePaymentsAlert`. */
  Alert: 'invoice-payments.alert',
  /** A duplicate invoice of an order was canceled at the service. Payload: `DuplicateInvoiceCanceled`. */
  DuplicateCanceled: 'invoice-payments.duplicate_canceled',
  /** A tracking code was posted to the service. Payload: `{ orderId, code, invoiceRecordId }`. */
  TrackingPosted: 'invoice-payments.tracking_posted',
  /** A tracking code could not be posted after the configured attempts. Payload: `{ orderId, code, error }`. */
  TrackingFailed: 'invoice-payments.tracking_failed',
  /** A refund whose answer was lost was settled, once, after the ledger row moved. Payload: `RefundSettled`. */
  RefundSettled: 'invoice-payments.refund_settled',
} as const;

/**
 * Internal: asks that the order's invoices be kept to one payable invoice (the checkout's enforcement, which cancels
 * a payable duplicate). Emitted when a paid duplicate wins over the unpaid invoice it duplicated, and when the
 * reconciliation finds a duplicate still payable after its check. Payload: the order's id.
 */
export const KEEP_ONE_PAYABLE = 'invoice-payments.internal.keep_one_payable';

/** Every alert kind, the one list (the owner screens' words for each are checked against it). */
export const ALERT_KINDS = [
  'paid_after_cancel',
  'amount_mismatch',
  'webhook_dead_letter',
  'duplicate_paid',
  'creation_unresolved',
  'invoice_number_clash',
  'foreign_invoice',
  'tracking_failed',
  'implausible_amount',
  'refund_unresolved',
  'captured_amount_changed',
] as const;

export interface InvoicePaymentsAlert {
  /**
   * `duplicate_paid`: two invoices of one order paid, refund one; `creation_unresolved`: creation unknown past
   * `checkout.unresolvedAlertMs`; `foreign_invoice`: a matched invoice the module did not send, left alone
   * (docs/webhooks.md); `implausible_amount`: an answer refused, nothing stored; `refund_unresolved`: docs/refunds.md;
   * `captured_amount_changed`: the service reports another total (or more paid) for a captured invoice: the stored
   * amounts and the order are kept, a person checks with the service (docs/webhooks.md).
   */
  kind: (typeof ALERT_KINDS)[number];
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
  /** `InvoiceRefund.id`; the Vendure plugin keeps it in its Refund's `metadata.refundId`. */
  refundId: string;
  invoiceRecordId: string;
  gatewayId: string | null;
  state: 'succeeded' | 'failed';
  amountCents: number;
  /** How it was decided (the totals read back), for a person. */
  reason: string | null;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Emits after the fact it tells of: a throwing listener is logged, never the emitting caller's problem. */
export function emitSafely(events: EventEmitter2, logger: Logger, name: string, payload: unknown): void {
  try {
    events.emit(name, payload);
  } catch (err) {
    logger.error(`a listener of ${name} threw: ${messageOf(err)}`);
  }
}

/** Logs an alert's message and emits the alert. */
export function raiseAlert(
  events: EventEmitter2,
  logger: Logger,
  alert: InvoicePaymentsAlert,
  level: 'warn' | 'error' = 'error',
): void {
  logger[level](alert.message);
  emitSafely(events, logger, InvoicePaymentsEvents.Alert, alert);
}
