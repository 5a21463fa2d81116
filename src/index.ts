/**
 * nestjs-invoice-payments: PIX, bank slip and credit card payments for Brazilian stores through the invoicing and
 * payment service. The host reaches the module only through this file (the sandbox is `nestjs-invoice-payments/sandbox`).
 */

// The module and its options.
export { InvoicePaymentsModule } from './invoice-payments.module';
export { INVOICE_PAYMENTS_OPTIONS } from './invoice-payments.constants';
export { WORKERS_ENV } from './invoice-payments.options';
export type {
  InvoicePaymentsModuleAsyncOptions,
  InvoicePaymentsModuleOptions,
  InvoicePaymentsModuleRootOptions,
  InvoicePaymentsModuleWiring,
} from './interfaces/invoice-payments-options.interface';

// For the host's DataSource.
export { INVOICE_PAYMENTS_ENTITIES } from './persistence/entities';
export { INVOICE_PAYMENTS_MIGRATIONS } from '../migrations';
export { InvoiceRecord } from './persistence/invoice.entity';
export type { InvoiceCreationState } from './persistence/invoice.entity';
export { InvoiceStatusHistory } from './persistence/invoice-status-history.entity';
export type { StatusChangeSource } from './persistence/invoice-status-history.entity';

// Checkout: the provider, the order it takes, its errors.
export { CheckoutModule } from './checkout/checkout.module';
export { InvoicePaymentProvider } from './checkout/invoice-payment.provider';
export { InvoiceCreationService } from './checkout/invoice-creation.service';
export { LateInvoiceService } from './checkout/late-invoice.service';
export { CheckoutConfig } from './checkout/checkout-config.service';
export { CHECKOUT_OPTIONS, CHECKOUT_SETTINGS } from './checkout/constants';
export type { CheckoutSettingsSource, CheckoutSettingsValues } from './checkout/constants';
export { resolveCheckoutOptions, DEFAULT_TIME_ZONE } from './checkout/checkout.options';
export type { AddressMapper, CheckoutOptions, ResolvedCheckoutOptions } from './checkout/checkout.options';
export { defaultAddressMapper } from './checkout/address-mapping';
export { mapOrderToInvoice, invoiceReferrer, withReferrer } from './checkout/order-mapping';
export { isValidTaxDocument, normalizeDocument } from './checkout/customer-mapping';
export type { CheckoutRequest, MappedInvoice } from './checkout/order-mapping';
export { sessionDataOf, sessionStatusOf } from './checkout/session-data';
export {
  CheckoutValidationError,
  InvoiceCreationFailedError,
  InvoiceCreationNeedsAttentionError,
  InvoiceCreationUnresolvedError,
  InvoiceNumberClashError,
  InvoiceOperationNotAllowedError,
  InvoiceRecordNotFoundError,
  OpenInvoiceConflictError,
  PaymentBeingConfirmedError,
  PaymentServiceError,
} from './checkout/errors';
export { DEFAULT_TEXT_LIMITS } from './checkout/text-limits';
export type { TextLimits } from './checkout/text-limits';
export { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM, idProblem, textProblem } from './core/text-bounds';
export type { TextRule } from './core/text-bounds';
export type { FieldErrors } from './checkout/errors';
export type * from './checkout/types';

// What the host learns: the port, the events, the status table.
export { ORDER_PAYMENT_PORT } from './core/order-payment.port';
export type { OrderPaymentPort, PaymentStatusChange, PaymentStatusSnapshot } from './core/order-payment.port';
export { InvoicePaymentsEvents } from './core/events';
export { WEBHOOK_VERIFIER } from './core/webhook-verifier.port';
export { GATEWAY_ERROR_HTTP_STATUS } from './core/http-status';
export type { WebhookVerification, WebhookVerifier } from './core/webhook-verifier.port';
export type { DuplicateInvoiceCanceled, InvoicePaymentsAlert, RefundSettled } from './core/events';
export { LATE_INVOICE_ADOPTER } from './core/late-invoice.port';
export type { LateInvoiceAdopter } from './core/late-invoice.port';
export { STATUS_TABLE, statusRow } from './core/status-table';
export type { OrderPaymentStatus, PaymentSessionStatus, StatusRow } from './core/status-table';
export { decideTransition, transitionTable, STATUS_STAGES } from './core/status-transitions';
export { InvoiceStatusModule } from './core/invoice-status.module';
export { InvoiceStatusService } from './core/invoice-status.service';
export type { StatusReport, StatusReportResult } from './core/invoice-status.service';
export { STATUS_DISPATCH_OPTIONS, StatusChangeDispatcher } from './core/status-dispatcher.service';
export type { StatusDispatchOptions } from './core/status-dispatcher.service';

// The service's client, its errors, money and status codes.
export * from './gateway';

// The other capabilities.
export * from './webhooks';
export * from './reconciliation';
export * from './shipping';
export * from './settings';

// Refunds: the ledger and the one refund path.
export * from './refunds';
