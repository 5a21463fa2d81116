/** Injection token of the resolved refund options. */
export const REFUNDS_OPTIONS = Symbol('INVOICE_PAYMENTS_REFUNDS_OPTIONS');
