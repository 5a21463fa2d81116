import { MAX_PAGE_SIZE } from './constants';
import { centsToDecimalString, centsToWireNumber, formatBrl } from './money';
import type { CreateInvoiceParams, ListInvoicesParams, RefundParams, TrackingParams } from './types';
import type { WireCreateInvoiceRequest } from './wire.types';
import type { WireCodes, WireListProfile } from './wire-profile';

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

/** The values a refund body template may use (profile `refund`). */
export function refundValues(params: RefundParams): Record<string, unknown> {
  return {
    id: params.id,
    invoice_id: params.invoiceId,
    amount: centsToWireNumber(params.amountCents),
    amount_decimal: centsToDecimalString(params.amountCents),
    amount_cents: params.amountCents,
    amount_brl: formatBrl(params.amountCents),
  };
}

/** The values a tracking body template may use (profile `tracking`). */
export function trackingValues(params: TrackingParams): Record<string, unknown> {
  return {
    invoice_id: params.invoiceId,
    code: params.code,
    carrier: params.carrier,
    url: params.url,
  };
}

/** `listInvoices` filters → the A7 query, with the parameter names in use. */
export function toWireListQuery(
  params: ListInvoicesParams,
  names: WireListProfile['query'],
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
