/** Injection token of the resolved reconciliation options. */
export const RECONCILIATION_OPTIONS = Symbol('INVOICE_PAYMENTS_RECONCILIATION_OPTIONS');

/** Name of the reconciliation's lease (table `invoice_payments_lease`). */
export const RECONCILIATION_LEASE = 'open-invoice-reconciliation';
