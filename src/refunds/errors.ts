import { InvoicePaymentsError } from '../domain/invoice-payments.error';
import { centsToDecimalString } from '../gateway/money';
import type { InvoiceRefund } from './refund.entity';

/** What a refusal names about the refund it is about. */
function describe(refund: InvoiceRefund): string {
  return `refund ${refund.id} of R$ ${centsToDecimalString(refund.amountCents)} (${refund.state})`;
}

/** Another refund of the invoice is in flight: nothing was sent, retry once it settled. Over HTTP: 409. */
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

/** The refund's answer was lost and is being confirmed: retry with the same key for its result. Over HTTP: 409. */
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

/** The idempotency key names a refund that failed: use a new key to try again. Over HTTP: 409. */
export class RefundFailedError extends InvoicePaymentsError {
  constructor(readonly refund: InvoiceRefund) {
    super(
      'refund_failed',
      `This idempotency key names ${describe(refund)}: ${refund.reason ?? 'no reason recorded'}; use a new key to try again`,
      { refundId: refund.id, refundState: refund.state },
    );
  }
}

/** A keyless refund repeating a recent one's amount: nothing was sent (docs/refunds.md). Over HTTP: 409. */
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
