/** Injection token of the resolved `ResolvedShippingOptions`. */
export const SHIPPING_OPTIONS = Symbol('INVOICE_PAYMENTS_SHIPPING_OPTIONS');

/** The host's shipment event, unless `shipping.shipmentEvent` names another. */
export const DEFAULT_SHIPMENT_EVENT = 'order.shipment_created';
