import { MAX_PAGE_SIZE } from './constants';
import type { GatewayListQueryNames } from './gateway.options';
import { centsToWireNumber } from './money';
import type { CreateInvoiceParams, ListInvoicesParams, TrackingParams } from './types';
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

/** `listInvoices` filters → the A7 query, with the parameter names in use. */
export function toWireListQuery(
  params: ListInvoicesParams,
  names: GatewayListQueryNames,
): Record<string, string | number> {
  const query: Record<string, string | number> = {
    [names.page]: params.page ?? 1,
    [names.limit]: params.limit ?? MAX_PAGE_SIZE,
  };
  if (params.status !== undefined) query[names.status] = params.status;
  if (params.referrer !== undefined) query[names.referrer] = params.referrer;
  if (params.paymentId !== undefined) query[names.paymentId] = params.paymentId;
  if (params.createdFrom !== undefined) query[names.createdFrom] = params.createdFrom;
  if (params.createdTo !== undefined) query[names.createdTo] = params.createdTo;
  return query;
}
