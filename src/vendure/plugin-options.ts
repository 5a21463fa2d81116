import type { InvoicePaymentsModuleOptions } from '../options/options';

/** Options of `InvoicePaymentsPlugin.init(...)`: the module's options plus the Vendure store's own. */
export interface InvoicePaymentsPluginOptions extends InvoicePaymentsModuleOptions {
  /** The Customer custom field keeping the CPF/CNPJ (defined unless the store has it). Default `taxDocument`. */
  documentField?: string;
}

/** The plugin's options as `init` kept them, its defaults filled in. */
export type ResolvedPluginOptions = InvoicePaymentsPluginOptions & { documentField: string };

/** Injection token of the plugin's {@link ResolvedPluginOptions}. */
export const VENDURE_PLUGIN_OPTIONS = Symbol('INVOICE_PAYMENTS_VENDURE_PLUGIN_OPTIONS');
