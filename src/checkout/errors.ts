import { InvoicePaymentsError } from '../errors/invoice-payments.error';
import { GatewayError, GatewayRateLimitError, isGatewayError } from '../gateway/errors';

/** Field path → what is wrong with it. */
export type FieldErrors = Record<string, string[]>;

/**
 * The checkout input is wrong; nothing was sent or stored. `fields` maps each input field (`items[0].quantity`...)
 * to its problems; values are never echoed (they may be personal data). Over HTTP: 400 with `fields`.
 */
export class CheckoutValidationError extends InvoicePaymentsError {
  constructor(readonly fields: FieldErrors) {
    const summary = Object.entries(fields)
      .map(([field, problems]) => `${field} ${problems.join(', ')}`)
      .join('; ');
    super('checkout_validation', `Invalid checkout input: ${summary}`, { fields });
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

/**
 * The invoice's creation has not settled (another caller is creating it, or the service could not be asked about an
 * unknown outcome); nothing new was created, try again later. Over HTTP: 409, or 503 (`serviceUnavailable`).
 */
export class InvoiceCreationUnresolvedError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    detail: string,
    /** The service failed or could not be reached while the module asked it (the service's trouble, not a refusal). */
    readonly serviceUnavailable = false,
    code:
      | 'invoice_creation_unresolved'
      | 'payment_being_confirmed'
      | 'invoice_creation_needs_attention' = 'invoice_creation_unresolved',
    details: Record<string, unknown> = {},
  ) {
    super(code, `The invoice of order ${orderId} is not settled yet: ${detail}`, {
      orderId,
      serviceUnavailable,
      ...details,
    });
  }
}

/**
 * A create request's outcome is unknown and it could still land at the service: retry after `retryAfterSeconds`
 * (the session shows `confirmingUntil`). Over HTTP: 409 (503), with `Retry-After`.
 */
export class PaymentBeingConfirmedError extends InvoiceCreationUnresolvedError {
  constructor(
    orderId: string,
    readonly invoiceRecordId: string,
    /** Whole seconds, at least 1. */
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

/**
 * Whether the attempt's invoice was created could not be found out for `checkout.unresolvedAlertMs`: the session is
 * `requires_more`, a `creation_unresolved` alert was raised; resolve it in the admin API (`recheck`,
 * `mark-not-created`). A retry also re-checks.
 */
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
 * The service answered an invoice number another record holds (it reused a number): the attempt is closed and the
 * order free again. Over HTTP: 409.
 */
export class InvoiceNumberClashError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    readonly invoiceRecordId: string,
    readonly gatewayId: string,
    readonly holderRecordId: string,
  ) {
    super(
      'invoice_number_clash',
      `The service created invoice ${gatewayId} for order ${orderId}, but invoice record ${holderRecordId} already ` +
        `holds that number: the service reused it (a sandbox restarted without its data?). The attempt ` +
        `${invoiceRecordId} is closed and the order may try again; cancel invoice ${gatewayId} in the service's ` +
        `panel if it is still open.`,
      { orderId, invoiceRecordId, gatewayId, holderRecordId },
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

/** What the shopper's side is told when the service itself failed: no address, no system error, no secret. */
const UPSTREAM_MESSAGES: Partial<Record<GatewayError['kind'], string>> = {
  network: 'The payment service could not be reached. Nothing was charged; try again in a moment.',
  unavailable: 'The payment service is unavailable. Try again in a moment.',
  rate_limit: 'The payment service is busy. Try again in a moment.',
  timeout: 'The payment service did not answer in time. Try again in a moment.',
  outcome_unknown:
    "The payment service's answer was lost; the payment is being confirmed. Try again in a moment.",
  response: 'The payment service answered something unusable. Try again in a moment.',
  authentication:
    "The payment service refused the store's credential: the store must check its payment settings.",
  scope: "The payment service refused the store's credential: the store must check its payment settings.",
};

/** Kinds that are the request's own fault (the service refused it); every other kind is the service's trouble. */
const REFUSAL_KINDS: ReadonlySet<GatewayError['kind']> = new Set([
  'validation',
  'not_found',
  'state_conflict',
  'mode',
]);

/** Whether a gateway failure is the service's own (or its credential's), not a refusal of the request. */
export function isUpstreamFailure(error: unknown): boolean {
  return isGatewayError(error) && !REFUSAL_KINDS.has(error.kind);
}

/**
 * A `GatewayError` as the shopper's side may be told it: for the service's own trouble a plain sentence without
 * internal details, which `gatewayError` (also `cause`) keeps for the log. The HTTP edges and the Medusa and Vendure
 * adapters present gateway errors through it. Over HTTP: `GATEWAY_ERROR_HTTP_STATUS[kind]`.
 */
export class PaymentServiceError extends InvoicePaymentsError {
  readonly kind: GatewayError['kind'];
  readonly retryAfterSeconds: number | null;

  constructor(readonly gatewayError: GatewayError) {
    const kind = gatewayError.kind;
    const message = (isUpstreamFailure(gatewayError) && UPSTREAM_MESSAGES[kind]) || gatewayError.message;
    const wait = gatewayError instanceof GatewayRateLimitError ? gatewayError.retryAfterMs : null;
    const retryAfterSeconds = wait === null ? null : Math.max(1, Math.ceil(wait / 1000));
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
