import type { InvoicePaymentsModuleOptions } from '../options/options';

/**
 * Options of `InvoicePaymentsPlugin.init(...)`: the module's options (`gateway` required; see
 * `InvoicePaymentsModuleOptions`) plus what only a Vendure store needs.
 */
export interface InvoicePaymentsPluginOptions extends InvoicePaymentsModuleOptions {
  /**
   * Name of the Customer custom field (string) that keeps the customer's CPF or CNPJ. The plugin defines it unless
   * the store already has a custom field of that name. Default `taxDocument`.
   */
  documentField?: string;
}

/** {@link InvoicePaymentsPluginOptions} with the plugin's own defaults filled in. */
export interface ResolvedPluginOptions extends InvoicePaymentsPluginOptions {
  documentField: string;
}
