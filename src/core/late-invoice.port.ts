import type { Invoice } from '../gateway/types';
import type { StatusChangeSource } from '../persistence/invoice-status-history.entity';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/** Injection token of the {@link LateInvoiceAdopter} the checkout capability provides. */
export const LATE_INVOICE_ADOPTER = Symbol('INVOICE_PAYMENTS_LATE_INVOICE_ADOPTER');

/**
 * Matches a service invoice that no record holds by its number to its order, by the referrer it was created
 * under (`<order reference>-<attempt>`), and keeps the order at one payable invoice (see the checkout's
 * `LateInvoiceService`). Lives in `core/` so the webhooks capability can call it without importing the checkout.
 */
export interface LateInvoiceAdopter {
  /** The record the invoice now belongs to, or `null` when it is not this store's (or has no record of its own). */
  adopt(invoice: Invoice, source: StatusChangeSource): Promise<InvoiceRecord | null>;
}
