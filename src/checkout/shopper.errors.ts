import { InvoicePaymentsError } from '../domain/invoice-payments.error';

/** A status token of the wrong format (checked before any lookup). Over HTTP: 400 naming the field `token`. */
export class StatusTokenInvalidError extends InvoicePaymentsError {
  constructor(problem: string) {
    super('status_token_invalid', `token: ${problem}`, { fields: { token: [problem] } });
  }
}

/**
 * No payment the caller may see: a token no record holds, or another shopper's payment. One answer for both, so
 * the answer tells nothing about what exists. Over HTTP: 404.
 */
export class ShopperPaymentNotFoundError extends InvoicePaymentsError {
  constructor() {
    super('shopper_payment_not_found', 'No such payment');
  }
}

/** Too many requests for one payment. Over HTTP: 429 with `Retry-After`. */
export class ShopperRateLimitedError extends InvoicePaymentsError {
  constructor(readonly retryAfterSeconds: number) {
    super('shopper_rate_limited', `Too many requests for this payment; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
}

/** The payment cannot get a new PIX code (not a PIX, paid, or not close to expiring). Over HTTP: 409. */
export class RenewalNotOfferedError extends InvoicePaymentsError {
  constructor(detail: string) {
    super('renewal_not_offered', `This payment cannot get a new code: ${detail}`);
  }
}

/**
 * The service's answer to a renewal was lost: it may have moved the due date. Nothing is sent again until that is
 * known. Over HTTP: 503 with `Retry-After`.
 */
export class RenewalOutcomeUnknownError extends InvoicePaymentsError {
  constructor(readonly retryAfterSeconds: number) {
    super('renewal_outcome_unknown', `The new code is being confirmed; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
}
