import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  SETTING_LIST,
  type CheckoutSettingName,
  type InvoicePaymentsSettingsValues,
} from '../core/settings.schema';
import { ResolvedCheckoutOptions } from './checkout.options';

/** Injection token of the resolved checkout options (`ResolvedCheckoutOptions`). */
export const CHECKOUT_OPTIONS = Symbol('INVOICE_PAYMENTS_CHECKOUT_OPTIONS');

/** Injection token of the runtime settings (the admin panel) that override the checkout options; optional. */
export const CHECKOUT_SETTINGS = Symbol('INVOICE_PAYMENTS_CHECKOUT_SETTINGS');

/** Where the checkout reads its runtime settings from (the settings service matches it). */
export interface CheckoutSettingsSource {
  getEffective(): Promise<Pick<InvoicePaymentsSettingsValues, CheckoutSettingName>>;
  /** This installation's referrer namespace, made once and kept. */
  referrerNamespace?(): Promise<string>;
}

/**
 * The checkout options in force for one checkout: the module options, overridden by the runtime settings when a
 * settings source is provided (changes without a restart).
 */
@Injectable()
export class CheckoutConfig {
  constructor(
    @Inject(CHECKOUT_OPTIONS) private readonly options: ResolvedCheckoutOptions,
    @Optional() @Inject(CHECKOUT_SETTINGS) private readonly settings?: CheckoutSettingsSource | null,
  ) {}

  /** The options the module was started with (defaults applied). */
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
    for (const [name, { checkout }] of SETTING_LIST) {
      if (!checkout) continue;
      const value = (s as Record<string, unknown>)[name];
      current[checkout] = Array.isArray(value) ? [...value] : (value ?? undefined);
    }
    return current as unknown as ResolvedCheckoutOptions;
  }
}
