import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  SETTING_LIST,
  type CheckoutSettingName,
  type InvoicePaymentsSettingsValues,
} from '../core/settings.schema';
import { ResolvedCheckoutOptions } from '../options/checkout.options';

export const CHECKOUT_OPTIONS = Symbol('INVOICE_PAYMENTS_CHECKOUT_OPTIONS');

/** The runtime settings (admin panel) that override the checkout options; optional. */
export const CHECKOUT_SETTINGS = Symbol('INVOICE_PAYMENTS_CHECKOUT_SETTINGS');

export interface CheckoutSettingsSource {
  getEffective(): Promise<Pick<InvoicePaymentsSettingsValues, CheckoutSettingName>>;
  referrerNamespace?(): Promise<string>;
}

/** The checkout options in force: the module options overridden by the runtime settings, if any. */
@Injectable()
export class CheckoutConfig {
  constructor(
    @Inject(CHECKOUT_OPTIONS) private readonly options: ResolvedCheckoutOptions,
    @Optional() @Inject(CHECKOUT_SETTINGS) private readonly settings?: CheckoutSettingsSource | null,
  ) {}

  get static(): ResolvedCheckoutOptions {
    return this.options;
  }

  /** The `referrerNamespace` option, else the settings' one; `''` only for a checkout without settings. */
  async referrerNamespace(): Promise<string> {
    if (this.options.referrerNamespace) return this.options.referrerNamespace;
    return this.settings?.referrerNamespace ? this.settings.referrerNamespace() : '';
  }

  async current(): Promise<ResolvedCheckoutOptions> {
    if (!this.settings) return this.options;
    const s = await this.settings.getEffective();
    // An unset setting (`null`) leaves its option unset.
    const current: Record<string, unknown> = { ...this.options };
    for (const [name, { option }] of SETTING_LIST) {
      if (option?.[0] !== 'checkout') continue;
      const value = (s as Record<string, unknown>)[name];
      current[option[1]] = Array.isArray(value) ? [...value] : (value ?? undefined);
    }
    return current as unknown as ResolvedCheckoutOptions;
  }
}
