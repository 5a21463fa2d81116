import { BadRequestException, ConflictException, NotFoundException } from '@nestjs/common';

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
 * call looks the invoice up by its reference first).
 */
export class InvoiceCreationUnresolvedError extends ConflictException {
  constructor(
    readonly orderId: string,
    detail: string,
  ) {
    super(`The invoice of order ${orderId} is not settled yet: ${detail}`);
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
  ) {
    super(orderId, `payment is being confirmed, retry in ${retryAfterSeconds} s (${detail})`);
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
