import { centsToDecimalString } from '../gateway/money';
import { InvoiceStatusCode } from '../gateway/status';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/** Codes that say money was taken: the amount and currency must be the ones the invoice was created for. */
const MONEY_TAKEN: readonly number[] = [InvoiceStatusCode.Authorized, InvoiceStatusCode.Paid];

/**
 * Why a paid (5) or authorized (4) report cannot be trusted as "the order is paid", or `null` when it can: the
 * amount the service says was paid (`payment.total`, else the invoice's gross) or the currency differs from what
 * the invoice was created for, or the service reported no amount at all. Such a report is still recorded, but
 * the order becomes `requires_action`, never `captured` (`amount_mismatch` alert).
 */
export function paymentMismatchOf(
  code: number,
  invoice: Invoice | undefined,
  record: InvoiceRecord,
): string | null {
  if (!MONEY_TAKEN.includes(code) || !invoice) return null;
  const paid = invoice.amounts.paidCents ?? invoice.amounts.grossCents;
  const expected = centsToDecimalString(record.amountCents);
  if (paid === null) return `the service reported status ${code} without an amount; expected ${expected}`;
  if (paid !== record.amountCents) {
    return `the service reported ${centsToDecimalString(paid)} paid (status ${code}); the invoice was created for ${expected}`;
  }
  const currency = invoice.currency?.trim().toUpperCase();
  if (currency && currency !== record.currency.toUpperCase()) {
    return `the service reported currency ${currency}; the invoice was created in ${record.currency}`;
  }
  return null;
}
