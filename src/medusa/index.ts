/**
 * `nestjs-invoice-payments/medusa`: the Medusa v2 payment module provider. Register it in `medusa-config.ts`
 * under the Payment module's providers (`resolve: 'nestjs-invoice-payments/medusa'`), and the package as a plugin
 * with the same options (`plugins: [{ resolve: 'nestjs-invoice-payments', options }]`); see `docs/medusa.md`.
 * This entry point needs `@medusajs/framework` (an optional peer); the package's other entry points do not.
 */
import { loadMedusaFramework } from './framework';
import { InvoicePaymentsMedusaProvider } from './provider.service';
import { invoicePaymentsStartupLoader } from './runtime';

export { InvoicePaymentsMedusaProvider } from './provider.service';
export {
  closeInvoicePaymentsRuntimes,
  invoicePaymentsRuntime,
  startedInvoicePaymentsRuntimes,
  runInvoicePaymentsMigrations,
  DEFAULT_MEDUSA_SCHEMA,
  MEDUSA_MIGRATIONS_TABLE,
  invoicePaymentsStartupLoader,
} from './runtime';
export { medusaAmountToCents, centsToMedusaAmount } from './amounts';
export { buildCheckoutData, DEFAULT_DOCUMENT_KEYS } from './order';
export { WebhookNotSettledError } from './webhook-action';
export { syncMedusaPayments, MEDUSA_PROCESS_PAYMENT_WORKFLOW } from './payment-sync';
export type {
  MedusaPaymentSessions,
  MedusaSyncOptions,
  MedusaSyncResult,
  ProcessMedusaPayment,
} from './payment-sync';
export { recordMedusaShipment, MEDUSA_SHIPMENT_EVENT } from './plugin';
export type { MedusaShipment } from './plugin';
export type { MedusaOrderInvoiceView } from './order-invoices';
export type * from './types';

const { ModuleProvider, Modules } = loadMedusaFramework();

/**
 * The module provider definition Medusa loads from `resolve: 'nestjs-invoice-payments/medusa'`; its loader starts the
 * module's runtime (and workers) when Medusa starts.
 */
export default ModuleProvider(Modules.PAYMENT, {
  services: [InvoicePaymentsMedusaProvider],
  loaders: [invoicePaymentsStartupLoader],
});
