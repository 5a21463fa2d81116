/** Injection token of the module options (`InvoicePaymentsModuleOptions`) given to `forRoot`/`forRootAsync`. */
export const INVOICE_PAYMENTS_OPTIONS = Symbol('INVOICE_PAYMENTS_OPTIONS');
