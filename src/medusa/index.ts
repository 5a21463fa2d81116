/**
 * `nestjs-invoice-payments/medusa`: the Medusa v2 payment module provider, and the package as a Medusa plugin with the
 * same options; see docs/medusa.md. Needs `@medusajs/framework` (an optional peer); the other entry points do not.
 */
import { InvoicePaymentsMedusaProvider } from './provider.service';
import { invoicePaymentsStartupLoader, loadMedusaFramework } from './runtime';

export { InvoicePaymentsMedusaProvider } from './provider.service';
export {
  closeInvoicePaymentsRuntimes,
  invoicePaymentsRuntime,
  startedInvoicePaymentsRuntimes,
  runInvoicePaymentsMigrations,
  DEFAULT_MEDUSA_SCHEMA,
  MEDUSA_MIGRATIONS_TABLE,
  invoicePaymentsStartupLoader,
  centsToMedusaAmount,
} from './runtime';
export { medusaAmountToCents, buildCheckoutData, DEFAULT_DOCUMENT_KEYS } from './order';
export { WebhookNotSettledError } from '../core/ports';
export { syncMedusaPayments, MEDUSA_PROCESS_PAYMENT_WORKFLOW } from './payment-sync';
export type {
  MedusaPaymentSessions,
  MedusaSyncOptions,
  MedusaSyncResult,
  ProcessMedusaPayment,
} from './payment-sync';
export { recordMedusaShipment, MEDUSA_SHIPMENT_EVENT } from './plugin';
export type { MedusaShipment } from './plugin';
export type {
  MedusaOrderInvoiceView,
  MedusaSettingField,
  MedusaSettingsView,
  MedusaSettingsWarning,
} from './admin-routes';
export type * from './types';

const { ModuleProvider, Modules } = loadMedusaFramework();

/** What Medusa loads from `resolve: 'nestjs-invoice-payments/medusa'`; its loader starts the runtime with Medusa. */
export default ModuleProvider(Modules.PAYMENT, {
  services: [InvoicePaymentsMedusaProvider],
  loaders: [invoicePaymentsStartupLoader],
});
