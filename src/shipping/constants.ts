/** Injection token of the resolved {@link ResolvedShippingOptions}. */
export const SHIPPING_OPTIONS = Symbol('INVOICE_PAYMENTS_SHIPPING_OPTIONS');

/** The host's shipment event, unless `shipping.shipmentEvent` names another. */
export const DEFAULT_SHIPMENT_EVENT = 'order.shipment_created';

/** Longest tracking code accepted (carriers' codes are far shorter: Correios uses 13 characters). */
export const MAX_TRACKING_CODE_LENGTH = 64;
export const MAX_CARRIER_LENGTH = 64;
export const MAX_TRACKING_URL_LENGTH = 2048;
/** Same bound as `InvoiceRecord.orderId`. */
export const MAX_ORDER_ID_LENGTH = 128;
