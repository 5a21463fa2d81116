/**
 * `nestjs-invoice-payments/vendure`: the module as a Vendure 3 plugin. Needs `@vendure/core` (an optional peer
 * dependency of the package). See `docs/vendure.md`.
 */
export { InvoicePaymentsPlugin } from './invoice-payments.plugin';
export { invoicePaymentMethodHandler } from './payment-method.handler';
export { INVOICE_PAYMENTS_HANDLER_CODE, DEFAULT_DOCUMENT_FIELD, PAYMENT_STATE_OF_CODE } from './constants';
export type { InvoicePaymentsPluginOptions } from './constants';
export { VendureOrderPaymentPort } from './order-payment.port';
export { OrderEventsSubscriber } from './order-events.subscriber';
export { toCheckoutOrder } from './order-mapping';
export type { OrderMappingExtras } from './order-mapping';
