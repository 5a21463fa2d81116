import type { FactoryProvider } from '@nestjs/common';
import { isTimeZone } from '../domain/text-and-days';
import { PRODUCT_DISCOUNT_RULES } from '../gateway/wire-profile';
import type { InvoicePaymentsModuleOptions } from './options';
import { DEFAULT_ADMIN_PREFIX } from './admin.options';
import { resolveWebhooksOptions } from './webhooks.options';

/** Injection token of the module options (`InvoicePaymentsModuleOptions`) given to `forRoot`/`forRootAsync`. */
export const INVOICE_PAYMENTS_OPTIONS = Symbol('INVOICE_PAYMENTS_OPTIONS');

/** Environment variable giving the default of `workers`: `0`, `false` or `off` starts no background worker. */
export const WORKERS_ENV = 'INVOICE_PAYMENTS_WORKERS';

/** The sections given beside `forRootAsync`'s factory (or all of `forRoot`'s options). */
export type StaticSections = Pick<InvoicePaymentsModuleOptions, 'webhooks' | 'shipping' | 'admin'>;

/** Refuses options that cannot work, naming the option, at startup. */
export function checkOptions<T extends InvoicePaymentsModuleOptions>(options: T): T {
  if (!options || typeof options !== 'object') throw new Error('InvoicePaymentsModule: options are required');
  if (!options.gateway || typeof options.gateway !== 'object') {
    throw new Error('InvoicePaymentsModule: gateway is required (baseUrl, accessToken, mode)');
  }
  // The admin settings check their own `wireProfile` on save; the options' profile is checked here, at start.
  const { timeZone: zone, productDiscount: rule } = options.gateway.profile ?? {};
  if (zone !== undefined && !isTimeZone(zone)) {
    throw new Error(
      `InvoicePaymentsModule: gateway.profile.timeZone ${JSON.stringify(zone)} is not an IANA time zone`,
    );
  }
  if (rule !== undefined && !PRODUCT_DISCOUNT_RULES.includes(rule)) {
    const allowed = PRODUCT_DISCOUNT_RULES.join(', ');
    throw new Error(
      `InvoicePaymentsModule: gateway.profile.productDiscount ${JSON.stringify(rule)} must be one of ${allowed}`,
    );
  }
  if (options.workers !== undefined && typeof options.workers !== 'boolean') {
    throw new Error('InvoicePaymentsModule: workers must be true or false');
  }
  return options;
}

/**
 * The factory's options merged with the sections beside it, the factory winning; Nest fixes routes before any
 * factory runs, so a factory asking for another route is refused rather than silently ignored.
 */
export function mergeAsyncOptions(fromFactory: InvoicePaymentsModuleOptions, statics: StaticSections) {
  const options = checkOptions(fromFactory);
  const merged: InvoicePaymentsModuleOptions = {
    ...options,
    webhooks: { ...statics.webhooks, ...options.webhooks },
    shipping: { ...statics.shipping, ...options.shipping },
    admin: { ...statics.admin, ...options.admin },
  };
  const route = (name: string, read: (sections: StaticSections) => string) => {
    const [defined, asked] = [read(statics), read(merged)];
    if (defined === asked) return;
    throw new Error(
      `InvoicePaymentsModule.forRootAsync: ${name} "${asked}" from the factory differs from the route defined ` +
        `("${defined}"). Routes are fixed before the factory runs: give ${name} beside useFactory, ` +
        `e.g. forRootAsync({ ${name.replace('.', ': { ')}: '${asked}' }, useFactory }).`,
    );
  };
  route('webhooks.path', (o) => resolveWebhooksOptions(o.webhooks).path);
  route('admin.prefix', (o) => (o.admin?.prefix ?? DEFAULT_ADMIN_PREFIX).replace(/^\/+|\/+$/g, ''));
  return merged;
}

/** The `workers` option, else {@link WORKERS_ENV}, else `true`. */
function workersEnabled(options: InvoicePaymentsModuleOptions, env = process.env): boolean {
  if (options.workers !== undefined) return options.workers;
  const raw = env[WORKERS_ENV]?.trim().toLowerCase();
  return !(raw === '0' || raw === 'false' || raw === 'off');
}

/** A provider of one section of the module options, resolved; `workers` is {@link workersEnabled}. */
export function section<K extends keyof InvoicePaymentsModuleOptions, T>(
  token: symbol,
  key: K,
  resolve: (given: InvoicePaymentsModuleOptions[K], workers: boolean) => T,
): FactoryProvider<T> {
  const useFactory = (options: InvoicePaymentsModuleOptions) =>
    resolve(options[key], workersEnabled(options));
  return { provide: token, useFactory, inject: [INVOICE_PAYMENTS_OPTIONS] };
}
