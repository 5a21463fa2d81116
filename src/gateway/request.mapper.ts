import { centsToWireNumber } from './money';
import type { CreateInvoiceParams, TrackingParams } from './types';
import type { WireCreateInvoiceRequest, WireTrackingRequest } from './wire.types';

/** `payment.type` / `payment.product_type` numbers in use (A3, overridable by options). */
export interface WireCodes {
  paymentTypes: { pix: number; billet: number; card: number };
  productTypes: { physical: number; digital: number };
}

/** Drops `undefined` members so the body carries only what the caller gave. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * `CreateInvoiceParams` → the §4.2 body: the method becomes `payment.type`, `physical` becomes
 * `payment.product_type`, cents become exact decimal numbers (A1). Expects validated input.
 */
export function toWireCreateInvoice(params: CreateInvoiceParams, codes: WireCodes): WireCreateInvoiceRequest {
  const { client, payment } = params;
  const body: WireCreateInvoiceRequest = {
    client: compact({
      name: client.name,
      document: client.document,
      email: client.email,
      phone: client.phone,
      address: client.address && { ...client.address },
      ip: client.ip,
    }),
    payment: compact({
      product_type: payment.physical ? codes.productTypes.physical : codes.productTypes.digital,
      id: payment.id,
      type: codes.paymentTypes[payment.method],
      due_at: payment.dueAt,
      referrer: payment.referrer,
      installments: payment.installments,
      order_url: payment.orderUrl,
      store_url: payment.storeUrl,
      webhook: payment.webhook,
      discount: payment.discountCents === undefined ? undefined : centsToWireNumber(payment.discountCents),
      products: payment.products.map((p) =>
        compact({
          id: p.id,
          image: p.image,
          title: p.title,
          qnt: p.quantity,
          discount: centsToWireNumber(p.discountCents),
          amount: centsToWireNumber(p.unitAmountCents),
        }),
      ),
      card:
        payment.method === 'card' && payment.card
          ? {
              saved: 0 as const,
              tokenize: 0 as const,
              token: payment.card.token,
              valid: payment.card.valid,
              holder: { name: payment.card.holderName },
            }
          : undefined,
    }),
  };
  if (params.ecommerce)
    body.ecommerce = { store_id: params.ecommerce.storeId, checkout: params.ecommerce.checkout };
  if (params.shippingCents !== undefined) body.shipping = { amount: centsToWireNumber(params.shippingCents) };
  return body;
}

/** The A9 tracking body (the default of the `trackingBody` option). */
export function toWireTracking(params: TrackingParams): WireTrackingRequest {
  return {
    payment: { invoice_id: params.invoiceId },
    tracking: compact({ code: params.code, carrier: params.carrier, url: params.url }),
  };
}
