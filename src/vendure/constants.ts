/** Code of the Vendure `PaymentMethodHandler` (and of the payment method a store creates with it). */
export const INVOICE_PAYMENTS_HANDLER_CODE = 'invoice-payments';

/** Default name of the Customer custom field that keeps the customer's CPF or CNPJ. */
export const DEFAULT_DOCUMENT_FIELD = 'taxDocument';

export const LOG_CONTEXT = 'InvoicePaymentsPlugin';

/** Invoice codes for which the order has a Payment, and the Vendure state that Payment stands in. */
export const PAYMENT_STATE_OF_CODE: Readonly<Record<number, 'Authorized' | 'Settled' | 'Declined'>> = {
  4: 'Authorized',
  5: 'Settled',
  7: 'Settled',
  8: 'Settled',
  9: 'Settled',
  10: 'Settled',
  6: 'Declined',
  12: 'Declined',
  16: 'Declined',
};
