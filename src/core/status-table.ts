import { KnownInvoiceStatusCode } from '../gateway/status';

/**
 * The status of a payment session as the module's provider reports it (the shape of Medusa's provider contract,
 * which the module's provider follows on every host).
 */
export type PaymentSessionStatus =
  'pending' | 'requires_more' | 'authorized' | 'captured' | 'canceled' | 'error';

/** Payment status of a Medusa-style order. */
export type OrderPaymentStatus =
  | 'not_paid'
  | 'awaiting'
  | 'authorized'
  | 'captured'
  | 'partially_refunded'
  | 'refunded'
  | 'canceled'
  | 'requires_action';

export interface StatusRow {
  code: KnownInvoiceStatusCode;
  session: PaymentSessionStatus;
  order: OrderPaymentStatus;
  /**
   * The attempt is over and the customer may start another one (a new invoice for the same order): canceled,
   * denied and errored invoices can never be paid, so they stop blocking the order.
   */
  releasesOrder: boolean;
}

/**
 * The one status table: each code of spec §3 → the payment session's status → the order's payment status.
 * Codes 11, 13 and 14 are not listed in the spec: they are stored when seen and never applied (`statusRow` → null).
 */
export const STATUS_TABLE: Readonly<Record<KnownInvoiceStatusCode, StatusRow>> = {
  1: { code: 1, session: 'pending', order: 'awaiting', releasesOrder: false },
  2: { code: 2, session: 'pending', order: 'awaiting', releasesOrder: false },
  3: { code: 3, session: 'pending', order: 'awaiting', releasesOrder: false },
  4: { code: 4, session: 'authorized', order: 'authorized', releasesOrder: false },
  5: { code: 5, session: 'captured', order: 'captured', releasesOrder: false },
  6: { code: 6, session: 'canceled', order: 'canceled', releasesOrder: true },
  // The refund was asked for and the money has not gone back yet: the order is still paid.
  7: { code: 7, session: 'captured', order: 'captured', releasesOrder: false },
  8: { code: 8, session: 'captured', order: 'partially_refunded', releasesOrder: false },
  9: { code: 9, session: 'captured', order: 'refunded', releasesOrder: false },
  // A dispute needs a person: the money may be taken back.
  10: { code: 10, session: 'captured', order: 'requires_action', releasesOrder: false },
  12: { code: 12, session: 'error', order: 'not_paid', releasesOrder: true },
  // Overdue: still payable once the due date moves (§4.3), so the customer has more to do.
  15: { code: 15, session: 'requires_more', order: 'awaiting', releasesOrder: false },
  16: { code: 16, session: 'error', order: 'not_paid', releasesOrder: true },
};

/** The row of a code, or `null` for a code the spec does not list (never applied). */
export function statusRow(code: number | null | undefined): StatusRow | null {
  if (code === null || code === undefined) return null;
  return Object.prototype.hasOwnProperty.call(STATUS_TABLE, code)
    ? STATUS_TABLE[code as KnownInvoiceStatusCode]
    : null;
}
