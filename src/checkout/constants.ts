import type { CheckoutSettingName, InvoicePaymentsSettingsValues } from '../core/settings.schema';

/** Injection token of the resolved checkout options (`ResolvedCheckoutOptions`). */
export const CHECKOUT_OPTIONS = Symbol('INVOICE_PAYMENTS_CHECKOUT_OPTIONS');

/**
 * Injection token of a {@link CheckoutSettingsSource}: runtime settings (the admin panel) that override the
 * checkout options without a restart. Optional; the root module provides it from the settings service.
 */
export const CHECKOUT_SETTINGS = Symbol('INVOICE_PAYMENTS_CHECKOUT_SETTINGS');

/** The runtime settings the checkout reads, named as the settings service names them (see `settings.schema.ts`). */
export type CheckoutSettingsValues = Pick<InvoicePaymentsSettingsValues, CheckoutSettingName>;

/** Where the checkout reads its runtime settings from (the settings service matches it). */
export interface CheckoutSettingsSource {
  getEffective(): Promise<CheckoutSettingsValues>;
  /** This installation's referrer namespace, made once and kept (the settings service's). */
  referrerNamespace?(): Promise<string>;
}

/** How often a caller waiting for another caller's creation looks at the row again. */
export const CREATION_POLL_MS = 25;
/** "Retry in N s" while another request is creating the order's invoice. */
export const PENDING_RETRY_S = 2;
/**
 * How long the claim's INSERT may take before its create request leaves without moving `settlesAt`: the claim sets
 * `settlesAt` this much later than "now + create timeout + margin", so the usual claim needs no second write; a
 * slower one is followed by one, so `settlesAt` is never earlier than the request's own time + timeout + margin.
 */
export const CLAIM_HEADROOM_MS = 100;
