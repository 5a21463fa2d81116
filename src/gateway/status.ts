/**
 * The service's invoice states (spec §3): the integer `status.code` is the field to rely on, `status.text` varies
 * by acquirer. This is the one table of what each code means; what a code does to a payment session or an order
 * lives in the checkout's status table, built on this one.
 */
export const InvoiceStatusCode = {
  AwaitingPayment: 1,
  Processing: 2,
  Scheduled: 3,
  Authorized: 4,
  Paid: 5,
  Canceled: 6,
  AwaitingRefund: 7,
  PartiallyRefunded: 8,
  Refunded: 9,
  Contested: 10,
  Denied: 12,
  Overdue: 15,
  Error: 16,
} as const;

export type KnownInvoiceStatusCode = (typeof InvoiceStatusCode)[keyof typeof InvoiceStatusCode];

/** Meaning of each listed code, as the spec names it. Codes 11, 13 and 14 are not listed (§3). */
export const INVOICE_STATUS_NAMES: Readonly<Record<KnownInvoiceStatusCode, string>> = {
  1: 'Awaiting payment',
  2: 'Processing',
  3: 'Payment scheduled',
  4: 'Authorized',
  5: 'Paid',
  6: 'Canceled',
  7: 'Awaiting refund',
  8: 'Partially refunded',
  9: 'Refunded',
  10: 'Contested',
  12: 'Payment denied',
  15: 'Payment overdue',
  16: 'Payment error',
};

export function isKnownStatusCode(code: number): code is KnownInvoiceStatusCode {
  return Object.prototype.hasOwnProperty.call(INVOICE_STATUS_NAMES, code);
}

/** Codes from which a due-date change is allowed (§4.3, §8). */
export const DUE_DATE_CHANGE_CODES: readonly number[] = [1, 15];
/** Codes from which cancellation is allowed (A11). */
export const CANCELLABLE_CODES: readonly number[] = [1, 2, 3, 4, 15];
/** Codes from which a refund is allowed (A8). */
export const REFUNDABLE_CODES: readonly number[] = [5, 8];
/** Codes on which a tracking code is accepted (A9). */
export const TRACKABLE_CODES: readonly number[] = [4, 5, 8];
/**
 * Codes of an invoice that can still change on its own at the service (not final): awaiting payment, processing,
 * scheduled, authorized, awaiting refund, overdue. The reconciliation of open invoices looks these up.
 */
export const OPEN_CODES: readonly number[] = [1, 2, 3, 4, 7, 15];
