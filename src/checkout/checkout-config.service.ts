import { Inject, Injectable, Optional } from '@nestjs/common';
import { ResolvedCheckoutOptions } from './checkout.options';
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
   * once). `''` only for a checkout running without settings (no namespace: referrers as before).
   */
  async referrerNamespace(): Promise<string> {
    if (this.options.referrerNamespace) return this.options.referrerNamespace;
    return this.settings?.referrerNamespace ? this.settings.referrerNamespace() : '';
  }

  async current(): Promise<ResolvedCheckoutOptions> {
    if (!this.settings) return this.options;
    const s = await this.settings.getEffective();
    return {
      ...this.options,
      methods: [...s.enabledMethods],
      dueDays: s.dueDays,
      maxInstallments: s.maxInstallments,
      timeZone: s.timeZone,
      ecommerce: s.ecommerce ?? undefined,
      publicWebhookUrl: s.publicWebhookUrl ?? undefined,
      orderUrlTemplate: s.orderUrlTemplate ?? undefined,
      storeUrlTemplate: s.storeUrlTemplate ?? undefined,
    };
  }
}
