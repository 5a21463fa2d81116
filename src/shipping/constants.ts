/** Injection token of the resolved `ResolvedShippingOptions`. */
export const SHIPPING_OPTIONS = Symbol('INVOICE_PAYMENTS_SHIPPING_OPTIONS');
