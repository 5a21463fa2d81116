import { InvoicePaymentsError } from './invoice-payments.error';

/** A shipment was refused before anything was stored: `field` names the offending input. Over HTTP: 400. */
export class ShipmentValidationError extends InvoicePaymentsError {
  constructor(
    /** Path of the bad field, e.g. `trackingCode`. */
    readonly field: string,
    message: string,
  ) {
    super('shipment_validation', `${field}: ${message}`, { field });
  }
}

/** The order has no paid invoice to attach a tracking code to (A9). Over HTTP: 409. */
export class OrderNotPaidError extends InvoicePaymentsError {
  constructor(
    readonly orderId: string,
    /**
     * `no_invoice`: the order has no invoice at all; `not_paid`: the invoice the order follows (the one holding it,
     * not a duplicate) is not in status 4, 5 or 8, or none holds it.
     */
    readonly reason: 'no_invoice' | 'not_paid',
    /** Status code of the invoice the order follows, else of its latest invoice, when it has one. */
    readonly statusCode: number | null,
  ) {
    super(
      'order_not_paid',
      reason === 'no_invoice'
        ? `order ${orderId} has no invoice: no tracking code is sent for it`
        : `order ${orderId} has no paid invoice (latest status ${statusCode ?? 'unknown'}): no tracking code is sent for it`,
      { orderId, reason, invoiceStatus: statusCode },
    );
  }
}
