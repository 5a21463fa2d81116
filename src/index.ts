/**
 * nestjs-invoice-payments: PIX, bank slip and card payments for Brazilian stores. The host reaches the module only
 * through this file and the `/sandbox`, `/medusa` and `/vendure` entries; everything else may change in any release.
 */

// The module and its options.
export { InvoicePaymentsModule } from './invoice-payments.module';
export { INVOICE_PAYMENTS_OPTIONS } from './options/resolve';
export type * from './options/options';
export type { AddressMapper, CheckoutOptions } from './options/checkout.options';
export type { ShippingOptions } from './options/shipping.options';
export type { WebhooksOptions } from './options/webhooks.options';
export type { RefundsOptions } from './options/refunds.options';
export type { OpenReconciliationOptions } from './options/reconciliation.options';
export type { EncryptionKeyOptions, InvoicePaymentsAdminOptions } from './options/admin.options';
export type { GatewayClientOptions } from './gateway/gateway.options';
export { DEFAULT_WIRE_PROFILE, type WireProfile, type WireProfileOverrides } from './gateway/wire-profile';

// For the host's DataSource, and the rows a host may read.
export { INVOICE_PAYMENTS_ENTITIES } from './entities';
export { INVOICE_PAYMENTS_MIGRATIONS } from '../migrations';
export { initializeDataSource } from './persistence/migration-lock';
export { InvoiceRecord, InvoiceStatusHistory } from './persistence/invoice.entity';
export { InvoiceRefund } from './refunds/refund.entity';

// Checkout: the provider (Medusa's payment provider contract) and the order it takes.
export { InvoicePaymentProvider } from './checkout/invoice-payment.provider';
export { sessionDataOf } from './core/checkout.types';
export { isTaxDocument as isValidTaxDocument } from './gateway/dto/validators';
export type {
  ChangeDueDateInput,
  CheckoutAddress,
  CheckoutCard,
  CheckoutCustomer,
  CheckoutOrder,
  CheckoutOrderItem,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  InvoicePaymentSessionData,
  PaymentSessionInput,
  RefundPaymentInput,
  UpdatePaymentInput,
} from './core/checkout.types';

// Shipping and refunds: what a host calls.
export { TrackingService } from './shipping/tracking.service';
export { DEFAULT_SHIPMENT_EVENT } from './options/shipping.options';
export type { RecordShipmentInput, TrackingFailedEvent, TrackingPostedEvent } from './domain/shipping.types';
export { RefundService, type RefundRequest } from './refunds/refund.service';

// Services a host may inject: settings (secret rotation) and the reconciliation rounds (when it schedules them).
export { InvoicePaymentsSettingsService } from './settings/settings.service';
export { OpenInvoicesReconciler, ReconciliationService } from './reconciliation/open-invoices.reconciler';

// Operator signals: the health indicator (for `@nestjs/terminus`); metrics and spans go through `@opentelemetry/api`.
export { InvoicePaymentsHealthIndicator } from './observability/health.indicator';

// What the host learns and provides: the ports, the events, the status of a payment.
export { LATE_INVOICE_ADOPTER, ORDER_PAYMENT_PORT } from './core/ports';
export type {
  LateInvoiceAdopter,
  OrderPaymentPort,
  PaymentStatusChange,
  PaymentStatusSnapshot,
} from './core/ports';
export { InvoicePaymentsEvents } from './core/events';
export type { DuplicateInvoiceCanceled, InvoicePaymentsAlert, RefundSettled } from './core/events';
export { statusRow } from './domain/status-table';
export type { OrderPaymentStatus, PaymentSessionStatus, StatusRow } from './domain/status-table';

// Errors: one hierarchy for the service (GatewayError), one set for checkout, refunds, shipping and money, and the
// filter that answers them over HTTP.
export * from './gateway/errors';
export { GATEWAY_ERROR_HTTP_STATUS, InvoicePaymentsErrorsFilter } from './errors/http-answers';
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
} from './core/invoice.errors';
export type { FieldErrors } from './gateway/dto/validators';
export { RefundBeingConfirmedError, RefundFailedError, RefundInProgressError } from './refunds/errors';
export * from './domain/shipping.errors';
export { ImplausibleAmountError, MoneyFormatError } from './gateway/money';

// The service's client and the types its methods take and return.
export { GatewayClient } from './gateway/gateway.client';
export type * from './gateway/types'; // the client's method types only
export { InvoiceStatusCode } from './domain/status-table';

// Money: integer cents inside, exact decimals on the wire.
export { centsToDecimalString, formatBrl, type Cents } from './gateway/money';
