/** Injection token of `InvoicePaymentsSettingsDefaults`. */
export const INVOICE_PAYMENTS_SETTINGS_DEFAULTS = Symbol('INVOICE_PAYMENTS_SETTINGS_DEFAULTS');

/** Injection token of `InvoicePaymentsAdminOptions`. */
export const INVOICE_PAYMENTS_ADMIN_OPTIONS = Symbol('INVOICE_PAYMENTS_ADMIN_OPTIONS');

/** Injection token of the `SecretBox`. */
export const INVOICE_PAYMENTS_SECRET_BOX = Symbol('INVOICE_PAYMENTS_SECRET_BOX');
