import { STATUS_TABLE, type StatusRow } from '../domain/status-table';
import type { InvoicePaymentsModuleOptions } from '../options/options';

/** Code of the Vendure `PaymentMethodHandler` (and of the payment method a store creates with it). */
export const INVOICE_PAYMENTS_HANDLER_CODE = 'invoice-payments';

/** Default name of the Customer custom field that keeps the customer's CPF or CNPJ. */
export const DEFAULT_DOCUMENT_FIELD = 'taxDocument';

/** Options of `InvoicePaymentsPlugin.init(...)`: the module's options plus the Vendure store's own. */
export interface InvoicePaymentsPluginOptions extends InvoicePaymentsModuleOptions {
  /** The Customer custom field keeping the CPF/CNPJ (defined unless the store has it). Default `taxDocument`. */
  documentField?: string;
}

/** The plugin's options as `init` kept them, its defaults filled in. */
export type ResolvedPluginOptions = InvoicePaymentsPluginOptions & { documentField: string };

/** Injection token of the plugin's {@link ResolvedPluginOptions}. */
export const VENDURE_PLUGIN_OPTIONS = Symbol('INVOICE_PAYMENTS_VENDURE_PLUGIN_OPTIONS');

export const LOG_CONTEXT = 'InvoicePaymentsPlugin';

/** The Vendure state a Payment stands in. */
export type VendurePaymentState = 'Authorized' | 'Settled' | 'Declined';

/** A status's Payment state, read off its row: money taken (settled or not yet), or no payment ever (declined). */
function stateOfRow(row: StatusRow): VendurePaymentState | null {
  if (row.session === 'authorized') return 'Authorized';
  if (row.session === 'captured') return 'Settled';
  return row.is.includes('releasesOrder') ? 'Declined' : null;
}

/** Invoice codes for which the order has a Payment, and the Vendure state that Payment stands in. */
export const PAYMENT_STATE_OF_CODE: Readonly<Record<number, VendurePaymentState>> = Object.fromEntries(
  Object.values(STATUS_TABLE).flatMap((row) => {
    const state = stateOfRow(row);
    return state ? [[row.code, state]] : [];
  }),
);

/**
 * The state of the invoice's Payment: its code's, except that money taken for another amount than the order's is never
 * settled by the module (the status table's rule). It stays Authorized for a person, who settles it in Vendure's admin
 * (the handler allows that once the service reports it paid) or refunds it.
 */
export function paymentStateOf(code: number | null, amountMismatch: boolean): VendurePaymentState | null {
  const state = PAYMENT_STATE_OF_CODE[code ?? -1] ?? null;
  return amountMismatch && state === 'Settled' ? 'Authorized' : state;
}
