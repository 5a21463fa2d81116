import { BadRequestException, ConflictException, HttpException, NotFoundException } from '@nestjs/common';
import { GATEWAY_ERROR_HTTP_STATUS } from '../core/http-status';
import { GatewayError, GatewayRateLimitError, isGatewayError } from '../gateway/errors';

/** Field path → what is wrong with it. */
export type FieldErrors = Record<string, string[]>;

/**
 * The checkout input is wrong. Nothing was sent to the service and nothing was stored. `fields` maps each field of
 * the input (`customer.document`, `shipping_address.postal_code`, `items[0].quantity`, ...) to its problems; the
 * message names them too. Values are never echoed (they may be personal data). A Nest HTTP host answers 400.
 */
export class CheckoutValidationError extends BadRequestException {
  readonly fields: FieldErrors;

  constructor(fields: FieldErrors) {
    const summary = Object.entries(fields)
      .map(([field, problems]) => `${field} ${problems.join(', ')}`)
      .join('; ');
    const message = `Invalid checkout input: ${summary}`;
    super({ statusCode: 400, error: 'Bad Request', message, fields });
    this.fields = fields;
    this.message = message;
  }
}

/** Collects field errors, then throws them all at once. */
export class FieldErrorCollector {
  private readonly fields: FieldErrors = {};

  add(field: string, problem: string): void {
    (this.fields[field] ??= []).push(problem);
  }

  /** Number of problems so far. */
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

/**
 * The order already has an open invoice that does not match this request (another method or amount). Cancel it
 * (`cancelPayment`/`deletePayment`) and start again. A Nest HTTP host answers 409.
 */
export class OpenInvoiceConflictError extends ConflictException {
  constructor(
    readonly orderId: string,
    readonly invoiceRecordId: string,
    detail: string,
  ) {
    super(`Order ${orderId} already has an open invoice (${invoiceRecordId}): ${detail}; cancel it first`);
  }
}

/** An operation the invoice's status (or method) does not allow; checked before calling the service. */
export class InvoiceOperationNotAllowedError extends ConflictException {
  constructor(
    readonly operation: string,
    readonly invoiceRecordId: string,
    detail: string,
    /** Stable reason for people's pages (`wrong_status`, `wrong_method`, `not_created`, `nothing_left`). */
    readonly reason: string = 'wrong_status',
    /** The invoice's status code when refused. */
    readonly invoiceStatus: number | null = null,
  ) {
    super(`${operation} is not allowed for invoice ${invoiceRecordId}: ${detail}`);
  }
}

/**
 * The invoice's creation has not settled: another caller is still creating it, or the service could not be asked
 * whether a creation whose outcome was unknown went through. Nothing new was created; try again later (the next
 * call looks the invoice up by its reference first). A Nest HTTP host answers 409, or 503 when the service is
 * what could not be asked (`serviceUnavailable`).
 */
export class InvoiceCreationUnresolvedError extends HttpException {
  constructor(
    readonly orderId: string,
    detail: string,
    /** The service failed or could not be reached while the module asked it: 503 instead of 409. */
    readonly serviceUnavailable = false,
  ) {
    const status = serviceUnavailable ? 503 : 409;
    const message = `The invoice of order ${orderId} is not settled yet: ${detail}`;
    super(
      { statusCode: status, error: serviceUnavailable ? 'Service Unavailable' : 'Conflict', message },
      status,
    );
    this.message = message;
  }
}

/**
 * The payment is being confirmed with the service: a create request's outcome is unknown and it could still land
 * there, so nothing new is created before `retryAfterSeconds`. Retry then (the demo store answers 409 with a
 * `Retry-After` header). The session shows `creationState: 'unknown'` and `confirmingUntil`.
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
    );
  }
}

/**
 * The module could not find out for longer than `checkout.unresolvedAlertMs` whether the attempt's invoice was
 * created (the lookups keep failing). The session is `requires_more` with `attentionReason`, a
 * `creation_unresolved` alert was raised, and the admin API resolves it: `POST invoices/:id/recheck`, or
 * `POST invoices/:id/mark-not-created` after checking the service's panel. A retry also re-checks.
 */
export class InvoiceCreationNeedsAttentionError extends InvoiceCreationUnresolvedError {
  constructor(
    orderId: string,
    readonly invoiceRecordId: string,
    readonly reason: string,
  ) {
    super(orderId, `needs a person (${reason}); resolve invoice record ${invoiceRecordId} in the admin API`);
  }
}

/**
 * The service answered an invoice number that another local record already holds: the service reused a number (a
 * sandbox restarted without its data, or a service that recycles numbers). The attempt is closed, the order is free
 * for a new one; cancel the named invoice in the service's panel if it is still open. A Nest HTTP host answers 409.
 */
export class InvoiceNumberClashError extends ConflictException {
  constructor(
    readonly orderId: string,
    readonly invoiceRecordId: string,
    readonly gatewayId: string,
    readonly holderRecordId: string,
  ) {
    super(
      `The service created invoice ${gatewayId} for order ${orderId}, but invoice record ${holderRecordId} already ` +
        `holds that number: the service reused it (a sandbox restarted without its data?). The attempt ` +
        `${invoiceRecordId} is closed and the order may try again; cancel invoice ${gatewayId} in the service's ` +
        `panel if it is still open.`,
    );
  }
}

/**
 * The service refused the invoice as invalid (422/400): `fields` holds its field messages. The attempt is closed
 * and the order may try again. A Nest HTTP host answers 400.
 */
export class InvoiceCreationFailedError extends BadRequestException {
  constructor(
    readonly orderId: string,
    readonly reason: string,
    readonly fields: FieldErrors = {},
  ) {
    const message = `The service refused the invoice of order ${orderId}: ${reason}`;
    super({ statusCode: 400, error: 'Bad Request', message, fields });
    this.message = message;
  }
}

/** The session data names no invoice this module knows. */
export class InvoiceRecordNotFoundError extends NotFoundException {
  constructor(readonly invoiceRecordId: string) {
    super(`No invoice record ${invoiceRecordId}`);
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

/**
 * The payment service failed (or refused the operation) while the provider worked: the `GatewayError` as a Nest
 * HTTP exception, with the status of `GATEWAY_ERROR_HTTP_STATUS` (502/503/504 when the service or the store's
 * credential there is at fault, 400/404/409 when the request was). For the service's own trouble the message is a
 * plain sentence without internal details (no address, no system error); `gatewayError` (also `cause`) keeps them
 * for the host's log. `retryAfterSeconds` is set when the service asked to wait.
 */
export class PaymentServiceError extends HttpException {
  readonly kind: GatewayError['kind'];
  readonly retryAfterSeconds: number | null;

  constructor(readonly gatewayError: GatewayError) {
    const status = GATEWAY_ERROR_HTTP_STATUS[gatewayError.kind];
    const message = (status >= 500 && UPSTREAM_MESSAGES[gatewayError.kind]) || gatewayError.message;
    const wait = gatewayError instanceof GatewayRateLimitError ? gatewayError.retryAfterMs : null;
    const retryAfterSeconds = wait === null ? null : Math.max(1, Math.ceil(wait / 1000));
    super({ statusCode: status, error: `payment_service_${gatewayError.kind}`, message }, status, {
      cause: gatewayError,
    });
    this.message = message;
    this.kind = gatewayError.kind;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A gateway error as a {@link PaymentServiceError}; anything else unchanged. */
export function asCheckoutHttpError(error: unknown): unknown {
  return isGatewayError(error) ? new PaymentServiceError(error) : error;
}

/** Whether a gateway failure is the service's own (502/503/504), not a refusal of the request. */
export function isUpstreamFailure(error: unknown): boolean {
  return isGatewayError(error) && GATEWAY_ERROR_HTTP_STATUS[error.kind] >= 500;
}

/**
 * Method decorator of the provider's public operations: a gateway error leaves as a {@link PaymentServiceError},
 * so a host's controller can let every error of the provider out as it is.
 */
export function GatewayErrorsAsHttp(): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const operation = descriptor.value as (...args: unknown[]) => Promise<unknown>;
    descriptor.value = async function (this: unknown, ...args: unknown[]) {
      try {
        return await operation.apply(this, args);
      } catch (err) {
        throw asCheckoutHttpError(err);
      }
    };
  };
}
