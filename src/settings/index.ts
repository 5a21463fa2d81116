/** The settings capability's public surface (re-exported by the package's `index.ts`). */
export { SettingsModule } from './settings.module';
export type { SettingsModuleExtras } from './settings.module';
export { InvoicePaymentsSettingsService, SettingsConflictError } from './settings.service';
export type { SettingsUpdate } from './settings.mapping';
export { InvoicePaymentsSettingsRecord, DEFAULT_SETTINGS_ID } from './settings.entity';
export { SecretBox, SecretBoxError, ENCRYPTION_KEYS_ENV, ENCRYPTION_KEY_ID_ENV } from './secret-box';
export type { EncryptionKeyOptions } from './secret-box';
export { InvoicePaymentsAdminGuard } from './admin.guard';
export { InvoicePaymentsAdminController } from './admin.controller';
export { CredentialCheckService } from './credential-check.service';
export { AdminInvoicesService } from './admin-invoices.service';
export type { AdminInvoiceView, AdminInvoiceQuery } from './admin-invoices.service';
export { InvoicePaymentsAdminOperationsController } from './admin-operations.controller';
export { AdminOperationsService } from './admin-operations.service';
export type { AdminHistoryView, AdminInboxView, AdminOutboxView } from './admin-operations.views';
export { InvoicePaymentsAlertRecord } from './alert.entity';
export { InvoicePaymentsAlertsService } from './alerts.service';
export type { AdminAlertView, AdminAlertQuery } from './alerts.service';
export { InvoicePaymentsAdminUiController } from '../admin-ui/admin-ui.controller';
export { ADMIN_UI_CSP } from '../admin-ui/constants';
export { UpdateSettingsDto } from './admin.dto';
export type { AdminValidationErrorBody } from './validation';
export {
  DEFAULT_ADMIN_PREFIX,
  INVOICE_PAYMENTS_ADMIN_OPTIONS,
  INVOICE_PAYMENTS_SECRET_BOX,
  INVOICE_PAYMENTS_SETTINGS_DEFAULTS,
} from './constants';
export { BUILT_IN_DEFAULTS, PAYMENT_METHODS, SECRET_SETTINGS } from './types';
export type * from './types';
