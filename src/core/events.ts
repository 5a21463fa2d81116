/**
 * Events the module emits on `@nestjs/event-emitter`'s bus. Payloads are documented next to each name.
 */
export const InvoicePaymentsEvents = {
  /** A status change was applied. Payload: `PaymentStatusChange`. */
  StatusChanged: 'invoice-payments.status_changed',
  /** Something needs a person (paid after cancel, amount mismatch). Payload: `InvoicePaymentsAlert`. */
  Alert: 'invoice-payments.alert',
  /** A tracking code was posted to the service. Payload: `{ orderId, code, invoiceRecordId }`. */
  TrackingPosted: 'invoice-payments.tracking_posted',
  /** A tracking code could not be posted after the configured attempts. Payload: `{ orderId, code, error }`. */
  TrackingFailed: 'invoice-payments.tracking_failed',
} as const;

export interface InvoicePaymentsAlert {
  kind: 'paid_after_cancel' | 'amount_mismatch' | 'webhook_dead_letter';
  orderId: string | null;
  invoiceRecordId: string | null;
  message: string;
}
