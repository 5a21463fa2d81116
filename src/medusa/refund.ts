import type { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import type { PaymentSessionOutput } from '../core/checkout.types';
import { RefundBeingConfirmedError, RefundFailedError } from '../refunds/errors';
import type { RefundService } from '../refunds/refund.service';
import { medusaAmountToCents } from './order';
import type { MedusaProviderInput } from './types';

/**
 * Refunds Medusa's amount (major units, converted exactly to cents) of the session's paid invoice, keyed by Medusa's
 * refund id (`context.idempotency_key`), and answers only once the refund's outcome is known, whenever it can be.
 *
 * Medusa keeps no refund pending: on a provider error its Payment module deletes the refund it had just recorded, and
 * the operator's next click is a new refund with a new id, so a new key. An answer lost on the way back
 * (`RefundBeingConfirmedError`) is therefore not answered as an error at once: the refund ledger's outcome is waited
 * for until the refund's own window closes (`settlesAt`, docs/refunds.md). Made → Medusa's success, as if the answer
 * had arrived; not made → `RefundFailedError` (Medusa records none, and another refund may be asked for). Still
 * unknown then (the service cannot be asked) → the same error as before: the ledger goes on confirming it, and any
 * other refund of the invoice is refused (`RefundInProgressError`) until it is settled.
 */
export async function refundForMedusa(
  services: { provider: InvoicePaymentProvider; refunds: RefundService },
  input: MedusaProviderInput,
): Promise<PaymentSessionOutput> {
  const session = { data: { invoiceRecordId: input?.data?.invoiceRecordId as string } };
  try {
    return await services.provider.refundPayment({
      ...session,
      amount: medusaAmountToCents(input.amount),
      requestedBy: 'medusa',
      idempotencyKey: input.context?.idempotency_key || undefined,
    });
  } catch (err) {
    if (!(err instanceof RefundBeingConfirmedError)) throw err;
    const row = await services.refunds.awaitOutcome(err.refund);
    if (row.state === 'failed') throw new RefundFailedError(row);
    if (row.state !== 'succeeded') throw err;
    return { data: (await services.provider.getPaymentStatus(session)).data };
  }
}
