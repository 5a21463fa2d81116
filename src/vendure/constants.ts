import { STATUS_TABLE, type StatusRow } from '../domain/status-table';

/** Code of the Vendure `PaymentMethodHandler` (and of the payment method a store creates with it). */
export const INVOICE_PAYMENTS_HANDLER_CODE = 'invoice-payments';

/** Default name of the Customer custom field that keeps the customer's CPF or CNPJ. */
export const DEFAULT_DOCUMENT_FIELD = 'taxDocument';

export const LOG_CONTEXT = 'InvoicePaymentsPlugin';

/** The Vendure state a Payment stands in. */
export type VendurePaymentState = 'Authorized' | 'Settled' | 'Declined';

/** A status's Payment state, read off its row: money taken (settled or not yet), or no payment ever (declined). */
function paymentStateOf(row: StatusRow): VendurePaymentState | null {
  if (row.session === 'authorized') return 'Authorized';
  if (row.session === 'captured') return 'Settled';
  return row.is.includes('releasesOrder') ? 'Declined' : null;
}

/** Invoice codes for which the order has a Payment, and the Vendure state that Payment stands in. */
export const PAYMENT_STATE_OF_CODE: Readonly<Record<number, VendurePaymentState>> = Object.fromEntries(
  Object.values(STATUS_TABLE).flatMap((row) => {
    const state = paymentStateOf(row);
    return state ? [[row.code, state]] : [];
  }),
);
