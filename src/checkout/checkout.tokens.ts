import type { CheckoutSettingName, InvoicePaymentsSettingsValues } from '../options/settings.schema';

/** Injection token of the resolved checkout options. */
export const CHECKOUT_OPTIONS = Symbol('INVOICE_PAYMENTS_CHECKOUT_OPTIONS');

/** The runtime settings (admin panel) that override the checkout options; optional. */
export const CHECKOUT_SETTINGS = Symbol('INVOICE_PAYMENTS_CHECKOUT_SETTINGS');

export interface CheckoutSettingsSource {
  getEffective(): Promise<Pick<InvoicePaymentsSettingsValues, CheckoutSettingName>>;
  referrerNamespace(): Promise<string>;
}
