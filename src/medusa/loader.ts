import { Logger } from '@nestjs/common';
import { invoicePaymentsRuntime } from './runtime';
import type { InvoicePaymentsMedusaOptions } from './types';

const logger = new Logger('InvoicePayments:Medusa');

/**
 * The provider's module loader (`ModuleProvider(Modules.PAYMENT, { services, loaders })`): Medusa runs it when it
 * loads the Payment module, i.e. when Medusa starts, with the provider's options. It starts the module's runtime
 * (migrations, then the workers: webhook inbox, status dispatcher, reconciliation of open invoices, tracking), so
 * a payment made while the store was down is found after a restart without waiting for a checkout or a webhook.
 * The start is not awaited: Medusa's boot does not wait on the payment service; a failed start is logged and tried
 * again on the provider's first use.
 */
export async function invoicePaymentsStartupLoader({
  options,
}: {
  options?: Record<string, unknown>;
}): Promise<void> {
  if (!options || typeof options !== 'object' || !('gateway' in options)) return;
  invoicePaymentsRuntime(options as unknown as InvoicePaymentsMedusaOptions).catch((err: unknown) =>
    logger.error(`could not start: ${(err as Error).message}`),
  );
}
