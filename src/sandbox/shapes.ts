import type { WireApiInfo, WireEnvelope, WireErrorBody, WireInvoiceCurrent, WirePix } from './wire.types';
import { API_UPDATED, CURRENT_API_VERSION, REFUNDABLE_CODES, statusText } from './constants';
import { dayAsDateTime, localDateTime } from './dates';
import type { SandboxError } from './errors';
import { formatBrl, toDecimalNumber, toDecimalString } from './money';
import type { SandboxInvoiceRecord } from './types';

/** What rendering needs besides the record: where the sandbox listens, the time, the provider name. */
export interface RenderContext {
  baseUrl: string;
  now: Date;
  by: string;
  /** The service's time zone (A2). */
  timeZone: string;
}

export function api(ctx: RenderContext, version: string): WireApiInfo {
  return { by: ctx.by, version, updated: API_UPDATED };
}

/** Envelope of the current shape (§2.1) for a resource kind. */
export function envelope(ctx: RenderContext, type: string): WireEnvelope {
  return {
    date: localDateTime(ctx.now, ctx.timeZone),
    success: true,
    error: false,
    type,
    api: api(ctx, CURRENT_API_VERSION),
  };
}

/** The A6 error body. */
export function errorBody(ctx: RenderContext, err: SandboxError): WireErrorBody {
  return {
    ...envelope(ctx, 'error'),
    success: false,
    error: true,
    code: err.code,
    message: err.message,
    ...err.details,
  };
}

export const urls = (ctx: RenderContext, rec: SandboxInvoiceRecord) => ({
  page: `${ctx.baseUrl}/_sandbox/invoices/${rec.id}/page`,
  qr: `${ctx.baseUrl}/_sandbox/qr/${rec.id}.png`,
  slip: `${ctx.baseUrl}/_sandbox/billet/${rec.id}.svg`,
});

export function refunded(rec: SandboxInvoiceRecord): number {
  return rec.refunds.reduce((sum, r) => sum + r.amountCents, 0);
}

export function canRefundMore(rec: SandboxInvoiceRecord): boolean {
  return REFUNDABLE_CODES.includes(rec.statusCode) && rec.grossCents - refunded(rec) > 0;
}

export function lastRefundAt(rec: SandboxInvoiceRecord, zone: string): string | null {
  const last = rec.refunds[rec.refunds.length - 1];
  return last ? localDateTime(new Date(last.at), zone) : null;
}

export function pixOf(ctx: RenderContext, rec: SandboxInvoiceRecord): WirePix {
  if (!rec.pix) return { image: null, payload: null, status: null, ete: { id: null, refund_id: null } };
  return {
    image: urls(ctx, rec).qr,
    payload: rec.pix.payload,
    status: rec.pix.status,
    ete: { id: rec.pix.endToEndId, refund_id: rec.pix.refundId },
  };
}

export function billetOf(ctx: RenderContext, rec: SandboxInvoiceRecord): WireInvoiceCurrent['billet'] {
  return rec.billet
    ? { line: rec.billet.line, barcode: rec.billet.barcode, download: null, image: urls(ctx, rec).slip }
    : null;
}

export function paidAt(rec: SandboxInvoiceRecord, zone: string): string | null {
  return rec.payment.paidAt ? localDateTime(new Date(rec.payment.paidAt), zone) : null;
}

/** The invoice in the current shape (§2.1, version 3.x). */
export function renderCurrent(ctx: RenderContext, rec: SandboxInvoiceRecord): WireInvoiceCurrent {
  const card = rec.card;
  const refundedCents = refunded(rec);
  const paid = rec.payment.paidCents !== null;
  const status = statusText(rec.statusCode);
  return {
    currency: 'BRL',
    id: rec.id,
    uuid: rec.uuid,
    invoice_id: rec.invoiceId,
    token: rec.token,
    referrer: rec.referrer,
    card: {
      type: null,
      tid: null,
      token: null,
      bin: card?.bin ?? null,
      last4: card?.last4 ?? null,
      number: null,
      brand: card?.brand ?? null,
      acquirer: null,
      expire: card?.expire ?? null,
      holder: { name: card?.holderName ?? null, document: null },
    },
    created_at: localDateTime(new Date(rec.createdAt), ctx.timeZone),
    due_at: { day: dayAsDateTime(rec.dueDay), original: dayAsDateTime(rec.originalDueDay) },
    links: { url: urls(ctx, rec).page },
    installments: String(rec.installments),
    products: rec.products.map((p) => ({
      image: p.image,
      description: p.title,
      quantity: p.qnt,
      discount: toDecimalString(p.discountCents),
      price_cents: p.amountCents,
    })),
    customer: { id: rec.customerId },
    subscription: { id: null },
    secure: { id: rec.token, url: urls(ctx, rec).page },
    amount: {
      gross: toDecimalNumber(rec.grossCents),
      net: toDecimalNumber(rec.grossCents - rec.feesCents),
      fees: toDecimalNumber(rec.feesCents),
      discount: toDecimalNumber(rec.discountCents),
      shipping: toDecimalString(rec.shippingCents),
    },
    pix: pixOf(ctx, rec),
    billet: billetOf(ctx, rec),
    payment: {
      total: paid ? toDecimalNumber(rec.payment.paidCents ?? 0) : null,
      fees: paid ? toDecimalNumber(rec.feesCents) : null,
      dates: {
        system: paidAt(rec, ctx.timeZone),
        customer: paidAt(rec, ctx.timeZone),
        captured: rec.payment.method === 'card' ? paidAt(rec, ctx.timeZone) : null,
      },
    },
    split: { id: null, rules: null },
    refunds: {
      possbile: canRefundMore(rec),
      total: rec.refunds.length ? toDecimalNumber(refundedCents) : null,
      brl: rec.refunds.length ? formatBrl(refundedCents) : null,
      data: lastRefundAt(rec, ctx.timeZone),
    },
    tracking: rec.tracking && {
      code: rec.tracking.code,
      carrier: rec.tracking.carrier,
      url: rec.tracking.url,
      created_at: localDateTime(new Date(rec.tracking.createdAt), ctx.timeZone),
    },
    webhook: rec.webhookUrl,
    status: {
      text: status.text,
      sub_text: status.sub_text,
      code: rec.statusCode,
      title: status.title,
      description: status.description,
      details: null,
    },
  };
}

/** `{ envelope, __seconds, invoice }`: the response to creation and refund. */
export function currentResponse(ctx: RenderContext, rec: SandboxInvoiceRecord, startedAt: number) {
  return {
    ...envelope(ctx, 'invoice'),
    __seconds: elapsedSeconds(startedAt),
    invoice: renderCurrent(ctx, rec),
  };
}

/** Processing time in seconds, as `__seconds` reports it. */
export function elapsedSeconds(startedAt: number): number {
  return Math.round(performance.now() - startedAt) / 1000;
}
