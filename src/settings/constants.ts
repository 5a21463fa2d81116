/** Injection token of the settings defaults (`InvoicePaymentsSettingsDefaults`), derived from the module options. */
export const INVOICE_PAYMENTS_SETTINGS_DEFAULTS = Symbol('INVOICE_PAYMENTS_SETTINGS_DEFAULTS');

/** Injection token of the admin options (`InvoicePaymentsAdminOptions`). */
export const INVOICE_PAYMENTS_ADMIN_OPTIONS = Symbol('INVOICE_PAYMENTS_ADMIN_OPTIONS');

/** Injection token of the `SecretBox` that encrypts stored secrets. */
export const INVOICE_PAYMENTS_SECRET_BOX = Symbol('INVOICE_PAYMENTS_SECRET_BOX');

/** Default route prefix of the admin API. */
export const DEFAULT_ADMIN_PREFIX = 'admin/invoice-payments';

/** Default lifetime of cached effective settings, in ms. */
export const DEFAULT_SETTINGS_CACHE_TTL_MS = 5000;

/** Minimum length of the admin key: shorter keys are refused at startup. */
export const MIN_ADMIN_KEY_LENGTH = 16;
