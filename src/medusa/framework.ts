import type { MedusaErrorClass } from './session';
import type { InvoicePaymentsMedusaOptions } from './types';

/** `AbstractPaymentProvider` of `@medusajs/framework/utils`, as far as the provider relies on it. */
export type AbstractPaymentProviderClass = abstract new (
  cradle: Record<string, unknown>,
  config?: InvoicePaymentsMedusaOptions,
) => object;

/** The part of `@medusajs/framework/utils` the provider uses. */
export interface MedusaFrameworkUtils {
  AbstractPaymentProvider: AbstractPaymentProviderClass;
  ModuleProvider(module: string, definition: { services: unknown[]; loaders?: unknown[] }): unknown;
  Modules: { PAYMENT: string; WORKFLOW_ENGINE: string };
  MedusaError: MedusaErrorClass;
}

/**
 * Loads `@medusajs/framework/utils` from the Medusa application. Medusa is an optional peer of this package: only
 * this entry point (`nestjs-invoice-payments/medusa`) needs it, at runtime, so the package builds and its other
 * entry points run without Medusa installed, and the provider extends the application's own copy of the class.
 */
export function loadMedusaFramework(): MedusaFrameworkUtils {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only by this entry point
    return require('@medusajs/framework/utils') as MedusaFrameworkUtils;
  } catch (err) {
    throw new Error(
      'nestjs-invoice-payments/medusa needs @medusajs/framework (Medusa v2.5 or later) installed beside it: ' +
        (err instanceof Error ? err.message : String(err)),
    );
  }
}
