import { centsToDecimalString, centsToWireNumber, formatBrl } from './money';
import type { Planned } from './gateway.base';
import type { CreateInvoiceParams, RefundParams } from './types';
import {
  renderTemplate,
  type WireAuthenticate,
  type WireCodes,
  type WireProfile,
  type WireRequestPlan,
} from './wire-profile';

function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Validated `CreateInvoiceParams` → the §4.2 body (codes from the profile, exact decimal amounts, A1). */
export function toWireCreateInvoice(params: CreateInvoiceParams, codes: WireCodes) {
  const { client, payment } = params;
  const body: Record<string, unknown> = {
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

/** A profile's request (refund, tracking) with its body rendered: a write that changes an invoice. */
export function rendered(plan: WireRequestPlan, values: Record<string, unknown>): Planned {
  const body = typeof plan.body === 'function' ? plan.body(values) : renderTemplate(plan.body, values);
  return { method: plan.method, path: plan.path, body, safety: 'update' };
}

export function authenticatePlan(
  auth: WireAuthenticate,
  { clientId, clientSecret }: { clientId: string; clientSecret: string },
): Planned {
  const planned: Planned = { method: auth.method, path: auth.path, safety: 'write', secrets: [clientSecret] };
  if (auth.credentials === 'basic') planned.basic = { user: clientId, password: clientSecret };
  else {
    const template = auth.body ?? { client_id: '{client_id}', client_secret: '{client_secret}' };
    planned.body = renderTemplate(template, { client_id: clientId, client_secret: clientSecret });
  }
  return planned;
}

/** A fixed body to the invoices path (due date, cancel). */
export const invoiceWrite =
  (method: 'PATCH' | 'DELETE', body: unknown) =>
  (p: WireProfile): Planned => ({ method, path: p.paths.invoices, body, safety: 'update' });
