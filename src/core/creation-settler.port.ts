import type { InvoiceRecord } from '../persistence/invoice.entity';

/** Injection token of the {@link CreationSettler} the checkout capability provides. */
export const CREATION_SETTLER = Symbol('INVOICE_PAYMENTS_CREATION_SETTLER');

/**
 * Settles a record whose creation at the service is not settled (`unknown`, or `pending` past its stale time) by
 * asking the service (see the checkout's `CreationOutcomes.settle`). Lives in `core/` so the reconciliation
 * can call it without importing the checkout. Throws when it cannot decide yet; the caller tries again later.
 */
export interface CreationSettler {
  settle(record: InvoiceRecord): Promise<InvoiceRecord>;
}
