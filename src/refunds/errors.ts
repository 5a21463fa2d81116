import { InvoicePaymentsError } from '../errors/invoice-payments.error';
import { centsToDecimalString } from '../gateway/money';
import type { InvoiceRefund } from './refund.entity';

/** What a refusal names about the refund it is about. */
function describe(refund: InvoiceRefund): string {
  return `refund ${refund.id} of R$ ${centsToDecimalString(refund.amountCents)} (${refund.state})`;
}

/**
 * Another refund of the invoice is in flight (being sent, or its outcome being confirmed): at most one refund of an
 * invoice is in flight, so nothing was sent. Retry once it settled. Over HTTP: 409 with `refundId`.
 */
export class RefundInProgressError extends InvoicePaymentsError {
  constructor(
    readonly invoiceRecordId: string,
    readonly refund: InvoiceRefund,
  ) {
    super(
      'refund_in_progress',
      `Invoice ${invoiceRecordId} has a refund in progress: ${describe(refund)}; nothing was sent, retry once it is settled`,
      { refundId: refund.id, refundState: refund.state },
    );
  }
}

/**
 * The refund's request left and its answer was lost; the module is confirming with the service whether it was made
 * (reading `refunds.total` back, now and on a schedule). It must not be asked for again: retry with the same
 * idempotency key to get its result. Over HTTP: 409 with `refundId` and `retryAfterSeconds`.
 */
export class RefundBeingConfirmedError extends InvoicePaymentsError {
  constructor(
    readonly invoiceRecordId: string,
    readonly refund: InvoiceRefund,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'refund_being_confirmed',
      `The outcome of ${describe(refund)} is being confirmed with the service; do not refund again: ` +
        `retry with the same idempotency key in ${retryAfterSeconds} s for its result`,
      { refundId: refund.id, refundState: refund.state, retryAfterSeconds },
    );
  }
}

/**
 * The idempotency key names a refund that failed (the service refused it, or it was never made): that is its result.
 * To try again, ask with a new key. Over HTTP: 409.
 */
export class RefundFailedError extends InvoicePaymentsError {
  constructor(readonly refund: InvoiceRefund) {
    super(
      'refund_failed',
      `This idempotency key names ${describe(refund)}: ${refund.reason ?? 'no reason recorded'}; use a new key to try again`,
      { refundId: refund.id, refundState: refund.state },
    );
  }
}

/**
 * A refund asked for without an idempotency key, of the same amount of the same invoice as a refund asked for within
 * `refunds.repeatWindowMs`: it may be a retry of that one, or a second refund meant on purpose, and the module
 * cannot tell which. Nothing was sent. To make another refund of that amount, ask with an idempotency key (a new one
 * for each refund). Over HTTP: 409 with `refundId`, `refundState`, `refundCreatedAt` and
 * `sameAmountAllowedAt` (when a keyless refund of that amount is taken again).
 */
export class RefundRepeatedError extends InvoicePaymentsError {
  constructor(
    readonly invoiceRecordId: string,
    readonly refund: InvoiceRefund,
    readonly allowedAt: Date,
  ) {
    const at = refund.createdAt.toISOString();
    super(
      'refund_repeated',
      `Invoice ${invoiceRecordId} had ${describe(refund)} asked for at ${at}, and this refund of the same amount ` +
        'came without an idempotency key: nothing was sent. If it is a retry, that refund is its result; to make ' +
        `another refund of that amount, pass an idempotency key (a new one for each refund) or ask after ${allowedAt.toISOString()}`,
      {
        refundId: refund.id,
        refundState: refund.state,
        refundCreatedAt: at,
        sameAmountAllowedAt: allowedAt.toISOString(),
      },
    );
  }
}
