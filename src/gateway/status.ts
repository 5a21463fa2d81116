/** The service's invoice states (§3): rely on `status.code`; `status.text` varies by acquirer. */
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

/** Each code's name in the spec (11, 13 and 14 are not listed). */
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

/** Codes allowing a due-date change (§4.3), cancellation (A11), a refund (A8), a tracking code (A9). */
export const DUE_DATE_CHANGE_CODES: readonly number[] = [1, 15];
export const CANCELLABLE_CODES: readonly number[] = [1, 2, 3, 4, 15];
export const REFUNDABLE_CODES: readonly number[] = [5, 8];
export const TRACKABLE_CODES: readonly number[] = [4, 5, 8];
/** Codes of an invoice that can still change on its own at the service (not final). */
export const OPEN_CODES: readonly number[] = [1, 2, 3, 4, 7, 15];
