import { secondsToWait } from '../domain/clock';
import { InvoicePaymentsError, type InvoicePaymentsErrorCode } from '../domain/invoice-payments.error';
import type { FieldErrors } from '../gateway/dto/validators';
import { GatewayError, GatewayRateLimitError, isGatewayError } from '../gateway/errors';

/** Field errors as one line: `document is required; card.token must be a string`. */
export function fieldsSummary(fields: FieldErrors): string {
  return Object.entries(fields)
    .map(([field, problems]) => `${field} ${problems.join(', ')}`)
    .join('; ');
}

/** The checkout input is wrong (nothing sent or stored); values are never echoed. Over HTTP: 400 with `fields`. */
export class CheckoutValidationError extends InvoicePaymentsError {
  constructor(readonly fields: FieldErrors) {
    super('checkout_validation', `Invalid checkout input: ${fieldsSummary(fields)}`, { fields });
  }
}

/** Collects field errors, then throws them all at once. */
export class FieldErrorCollector {
  private readonly fields: FieldErrors = {};

  add(field: string, problem: string): void {
    (this.fields[field] ??= []).push(problem);
  }

  count(): number {
    return Object.values(this.fields).reduce((n, problems) => n + problems.length, 0);
  }

  has(field?: string): boolean {
    return field === undefined ? Object.keys(this.fields).length > 0 : field in this.fields;
  }

  throwIfAny(): void {
    if (this.has()) throw new CheckoutValidationError(this.fields);
  }
}

/** The order's open invoice is for another method or amount: cancel it first. Over HTTP: 409. */
export class OpenInvoiceConflictError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    readonly invoiceRecordId: string,
    detail: string,
  ) {
    super(
      'open_invoice_conflict',
      `Order ${orderId} already has an open invoice (${invoiceRecordId}): ${detail}; cancel it first`,
      { orderId, invoiceRecordId },
    );
  }
}

/** An operation the invoice's status (or method) does not allow; checked before calling the service. Over HTTP: 409. */
export class InvoiceOperationNotAllowedError extends InvoicePaymentsError {
  constructor(
    readonly operation: string,
    readonly invoiceRecordId: string,
    detail: string,
    /** Stable reason for people's pages (`wrong_status`, `wrong_method`, `not_created`, `nothing_left`). */
    readonly reason: string = 'wrong_status',
    /** The invoice's status code when refused. */
    readonly invoiceStatus: number | null = null,
  ) {
    super('operation_not_allowed', `${operation} is not allowed for invoice ${invoiceRecordId}: ${detail}`, {
      operation,
      invoiceRecordId,
      reason,
      invoiceStatus,
    });
  }
}

/** The invoice's creation has not settled; nothing new was created, try again later. Over HTTP: 409 (503). */
export class InvoiceCreationUnresolvedError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    detail: string,
    readonly serviceUnavailable = false,
    code: InvoicePaymentsErrorCode = 'invoice_creation_unresolved',
    details: Record<string, unknown> = {},
  ) {
    super(code, `The invoice of order ${orderId} is not settled yet: ${detail}`, {
      orderId,
      serviceUnavailable,
      ...details,
    });
  }
}

/** A create request's outcome is unknown: retry after `retryAfterSeconds`. Over HTTP: 409 (503), `Retry-After`. */
export class PaymentBeingConfirmedError extends InvoiceCreationUnresolvedError {
  constructor(
    orderId: string,
    readonly invoiceRecordId: string,
    readonly retryAfterSeconds: number,
    detail: string,
    serviceUnavailable = false,
  ) {
    super(
      orderId,
      `payment is being confirmed, retry in ${retryAfterSeconds} s (${detail})`,
      serviceUnavailable,
      'payment_being_confirmed',
      { invoiceRecordId, retryAfterSeconds },
    );
  }
}

/** The creation stayed unresolved past `checkout.unresolvedAlertMs`: a person resolves it (docs/checkout.md). */
export class InvoiceCreationNeedsAttentionError extends InvoiceCreationUnresolvedError {
  constructor(
    orderId: string,
    readonly invoiceRecordId: string,
    readonly reason: string,
  ) {
    super(
      orderId,
      `needs a person (${reason}); resolve invoice record ${invoiceRecordId} in the admin API`,
      false,
      'invoice_creation_needs_attention',
      { invoiceRecordId, reason },
    );
  }
}

/**
 * The service answered a number another record holds: the attempt is closed, the order free. With `heldGatewayId`:
 * the attempt's record holds that other invoice (linked meanwhile) and keeps it. Over HTTP: 409.
 */
export class InvoiceNumberClashError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    readonly invoiceRecordId: string,
    readonly gatewayId: string,
    readonly holderRecordId: string,
    readonly heldGatewayId: string | null = null,
  ) {
    const clash =
      heldGatewayId === null
        ? `invoice record ${holderRecordId} already holds that number: the service reused it (a sandbox restarted ` +
          `without its data?). The attempt ${invoiceRecordId} is closed and the order may try again`
        : `its attempt's invoice record ${invoiceRecordId} holds invoice ${heldGatewayId}, linked meanwhile, and keeps it`;
    super(
      'invoice_number_clash',
      `The service created invoice ${gatewayId} for order ${orderId}, but ${clash}; cancel invoice ${gatewayId} in ` +
        `the service's panel if it is still open.`,
      { orderId, invoiceRecordId, gatewayId, holderRecordId, ...(heldGatewayId ? { heldGatewayId } : {}) },
    );
  }
}

/** The service refused the invoice as invalid; the attempt is closed. Over HTTP: 400 with `fields`. */
export class InvoiceCreationFailedError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    readonly reason: string,
    readonly fields: FieldErrors = {},
  ) {
    super('invoice_creation_failed', `The service refused the invoice of order ${orderId}: ${reason}`, {
      orderId,
      reason,
      fields,
    });
  }
}

/** The session data names no invoice this module knows. Over HTTP: 404. */
export class InvoiceRecordNotFoundError extends InvoicePaymentsError {
  constructor(readonly invoiceRecordId: string) {
    super('invoice_record_not_found', `No invoice record ${invoiceRecordId}`, { invoiceRecordId });
  }
}

/** The record a status report names does not exist (the checkout's own 404 is `InvoiceRecordNotFoundError`). */
export class ReportedRecordNotFoundError extends InvoicePaymentsError {
  constructor(readonly recordId: string) {
    super('reported_record_not_found', `recordId: no invoice record ${recordId}`, { recordId });
  }
}

/** A status report the module built wrong: `field` names what is wrong with it. */
export class InvalidStatusReportError extends InvoicePaymentsError {
  constructor(field: string, problem: string) {
    super('invalid_status_report', `${field}: ${problem}`, { field });
  }
}

/** The record refused the creation move written with a status report (`details.reason`): nothing was written. */
export class CreationMoveRefusedError extends InvoicePaymentsError {
  constructor(recordId: string, reason: string) {
    super('creation_move_refused', `invoice record ${recordId} refused the creation move: ${reason}`, {
      recordId,
      reason,
    });
  }
}

const CREDENTIAL =
  "The payment service refused the store's credential: the store must check its payment settings.";
/** What the shopper's side is told when the service failed: no address, no system error, no secret. */
const UPSTREAM_MESSAGES: Partial<Record<GatewayError['kind'], string>> = {
  network: 'The payment service could not be reached. Nothing was charged; try again in a moment.',
  unavailable: 'The payment service is unavailable. Try again in a moment.',
  rate_limit: 'The payment service is busy. Try again in a moment.',
  timeout: 'The payment service did not answer in time. Try again in a moment.',
  outcome_unknown:
    "The payment service's answer was lost; the payment is being confirmed. Try again in a moment.",
  response: 'The payment service answered something unusable. Try again in a moment.',
  authentication: CREDENTIAL,
  scope: CREDENTIAL,
};

/** Kinds that are the request's own fault; every other kind is the service's trouble. */
const REFUSAL_KINDS = new Set<GatewayError['kind']>(['validation', 'not_found', 'state_conflict', 'mode']);

/** Whether a gateway failure is the service's own (or its credential's), not a refusal of the request. */
export function isUpstreamFailure(error: unknown): boolean {
  return isGatewayError(error) && !REFUSAL_KINDS.has(error.kind);
}

/** A `GatewayError` as the shopper may see it; `gatewayError` keeps the details. Over HTTP: by `kind`. */
export class PaymentServiceError extends InvoicePaymentsError {
  readonly kind: GatewayError['kind'];
  readonly retryAfterSeconds: number | null;

  constructor(readonly gatewayError: GatewayError) {
    const kind = gatewayError.kind;
    const message = (isUpstreamFailure(gatewayError) && UPSTREAM_MESSAGES[kind]) || gatewayError.message;
    const wait = gatewayError instanceof GatewayRateLimitError ? gatewayError.retryAfterMs : null;
    const retryAfterSeconds = wait === null ? null : secondsToWait(wait);
    super('payment_service', message, { kind, retryAfterSeconds }, { cause: gatewayError });
    this.kind = kind;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A gateway error as the {@link PaymentServiceError} a shopper's side may see; anything else unchanged. */
export function asPaymentServiceError(error: unknown): unknown {
  return isGatewayError(error) ? new PaymentServiceError(error) : error;
}

/** Whether an error is the service's own trouble (failed, or could not be asked), not a refusal of the request. */
export function isServiceTrouble(error: unknown): boolean {
  if (error instanceof PaymentServiceError) return isUpstreamFailure(error.gatewayError);
  if (error instanceof InvoiceCreationUnresolvedError) return error.serviceUnavailable;
  return isUpstreamFailure(error);
}
