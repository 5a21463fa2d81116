/** Injection token of the resolved `health` options. */
export const HEALTH_OPTIONS = Symbol('INVOICE_PAYMENTS_HEALTH_OPTIONS');
