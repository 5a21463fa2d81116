import { SETTING_LIST } from '../core/settings.schema';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ResolvedCheckoutOptions } from '../options/checkout.options';
import { CHECKOUT_OPTIONS, CHECKOUT_SETTINGS, CheckoutSettingsSource } from './constants';

/**
 * The checkout options in force for one checkout: the module options, overridden by the runtime settings when a
 * settings source is provided (the admin panel changes methods, due days, installments, URLs, time zone and
 * ecommerce ids without a restart).
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

  /**
   * This installation's referrer namespace: the `referrerNamespace` option, else the one kept in the settings (made
   * once). `''` only for a checkout running without settings: no namespace, referrers are `<reference>-<attempt>`.
   */
  async referrerNamespace(): Promise<string> {
    if (this.options.referrerNamespace) return this.options.referrerNamespace;
    return this.settings?.referrerNamespace ? this.settings.referrerNamespace() : '';
  }

  async current(): Promise<ResolvedCheckoutOptions> {
    if (!this.settings) return this.options;
    const s = await this.settings.getEffective();
    // Each setting that overrides a checkout option, as declared; an unset one (`null`) leaves it unset.
    const current: Record<string, unknown> = { ...this.options };
    for (const [name, { checkout }] of SETTING_LIST) {
      if (!checkout) continue;
      const value = (s as Record<string, unknown>)[name];
      current[checkout] = Array.isArray(value) ? [...value] : (value ?? undefined);
    }
    return current as unknown as ResolvedCheckoutOptions;
  }
}
