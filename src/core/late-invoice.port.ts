import type { Invoice } from '../gateway/types';
import type { StatusReportSource } from './status-sources';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/** Injection token of the {@link LateInvoiceAdopter} the checkout capability provides. */
export const LATE_INVOICE_ADOPTER = Symbol('INVOICE_PAYMENTS_LATE_INVOICE_ADOPTER');

/**
 * Matches a service invoice that no record holds by its number to its order, by the referrer it was created
 * under (`<order reference>-<attempt>`), and keeps the order at one payable invoice (see the checkout's
 * `LateInvoiceService`). Lives in `core/` so the webhooks capability can call it without importing the checkout.
 */
export interface LateInvoiceAdopter {
  /**
   * `record`: the record the invoice now belongs to, or `null` when it has none (no attempt has its referrer, or it
   * is a second invoice of an attempt that holds one). `foreign`: why it is not this store's invoice although an
   * attempt has its referrer (`InvoiceIdentity`): left alone and alerted.
   */
  adopt(invoice: Invoice, source: StatusReportSource): Promise<Adoption>;
}

/** What {@link LateInvoiceAdopter.adopt} made of an invoice. */
export interface Adoption {
  record: InvoiceRecord | null;
  foreign: string | null;
}
