import { type StatusDispatchSettings, resolveNotificationsOptions } from './notifications.options';
import type { InvoicePaymentsModuleOptions } from './options';
import { DEFAULT_ADMIN_PREFIX } from '../settings/constants';
import type { InvoicePaymentsAdminOptions } from './admin.options';
import {
  type ResolvedOpenReconciliationOptions,
  resolveReconciliationOptions,
} from './reconciliation.options';
import { type ResolvedShippingOptions, resolveShippingOptions } from './shipping.options';
import { resolveWebhooksOptions, type ResolvedWebhooksOptions } from './webhooks.options';

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
  if (options.workers !== undefined && typeof options.workers !== 'boolean') {
    throw new Error('InvoicePaymentsModule: workers must be true or false');
  }
  return options;
}

/**
 * The factory's options merged with the sections beside it, the factory winning; Nest fixes routes before any
 * factory runs, so a factory asking for another route is refused rather than silently ignored.
 */
export function mergeAsyncOptions(
  fromFactory: InvoicePaymentsModuleOptions,
  statics: StaticSections,
): InvoicePaymentsModuleOptions {
  const options = checkOptions(fromFactory);
  const merged: InvoicePaymentsModuleOptions = {
    ...options,
    webhooks: { ...statics.webhooks, ...options.webhooks },
    shipping: { ...statics.shipping, ...options.shipping },
    admin: { ...statics.admin, ...options.admin },
  };
  const route = (name: string, defined: string, asked: string) => {
    if (defined === asked) return;
    throw new Error(
      `InvoicePaymentsModule.forRootAsync: ${name} "${asked}" from the factory differs from the route defined ` +
        `("${defined}"). Routes are fixed before the factory runs: give ${name} beside useFactory, ` +
        `e.g. forRootAsync({ ${name.replace('.', ': { ')}: '${asked}' }, useFactory }).`,
    );
  };
  route(
    'webhooks.path',
    resolveWebhooksOptions(statics.webhooks).path,
    resolveWebhooksOptions(merged.webhooks).path,
  );
  route('admin.prefix', adminPrefix(statics.admin), adminPrefix(merged.admin));
  return merged;
}

function adminPrefix(admin: InvoicePaymentsAdminOptions = {}): string {
  return (admin.prefix ?? DEFAULT_ADMIN_PREFIX).replace(/^\/+|\/+$/g, '');
}

/** The `workers` option, else {@link WORKERS_ENV}, else `true`. */
export function workersEnabled(
  options: InvoicePaymentsModuleOptions,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (options.workers !== undefined) return options.workers;
  const raw = env[WORKERS_ENV]?.trim().toLowerCase();
  return !(raw === '0' || raw === 'false' || raw === 'off');
}

export function webhooksOptionsOf(options: InvoicePaymentsModuleOptions): ResolvedWebhooksOptions {
  const resolved = resolveWebhooksOptions(options.webhooks);
  if (workersEnabled(options)) return resolved;
  return { ...resolved, inbox: { ...resolved.inbox, pollIntervalMs: 0 } };
}

export function reconciliationOptionsOf(
  options: InvoicePaymentsModuleOptions,
): ResolvedOpenReconciliationOptions {
  const resolved = resolveReconciliationOptions(options.reconciliation);
  return workersEnabled(options) ? resolved : { ...resolved, intervalMs: 0 };
}

export function shippingOptionsOf(options: InvoicePaymentsModuleOptions): ResolvedShippingOptions {
  const resolved = resolveShippingOptions(options.shipping);
  return workersEnabled(options) ? resolved : { ...resolved, autoStartWorker: false };
}

/** Without workers, no polling: changes applied here are still delivered. */
export function notificationsOptionsOf(options: InvoicePaymentsModuleOptions): StatusDispatchSettings {
  const resolved = resolveNotificationsOptions(options.notifications);
  return workersEnabled(options) ? resolved : { ...resolved, pollIntervalMs: 0, pollOnStart: false };
}
