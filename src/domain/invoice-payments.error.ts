/**
 * The stable codes of the module's own errors (the service's failures: `GatewayError` kinds). Each has one HTTP
 * answer in errors/http-answers.ts, which the compiler holds to this list.
 */
export type InvoicePaymentsErrorCode =
  | 'checkout_validation'
  | 'invoice_creation_failed'
  | 'open_invoice_conflict'
  | 'operation_not_allowed'
  | 'invoice_creation_unresolved'
  | 'payment_being_confirmed'
  | 'invoice_creation_needs_attention'
  | 'invoice_number_clash'
  | 'invoice_record_not_found'
  | 'payment_service'
  | 'refund_in_progress'
  | 'refund_being_confirmed'
  | 'refund_failed'
  | 'refund_repeated'
  | 'shipment_validation'
  | 'order_not_paid'
  | 'reported_record_not_found'
  | 'creation_move_refused'
  | 'status_token_invalid'
  | 'shopper_payment_not_found'
  | 'shopper_rate_limited'
  | 'renewal_not_offered'
  | 'renewal_outcome_unknown'
  | 'invalid_status_report';

/**
 * Base of the module's own errors, which know no transport: callers switch on `code`; `details` holds the facts as
 * plain JSON. Each HTTP edge and host adapter maps `code` once.
 */
export abstract class InvoicePaymentsError extends Error {
  protected constructor(
    readonly code: InvoicePaymentsErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
