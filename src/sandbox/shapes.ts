import type {
  WireApiInfo,
  WireEnvelope,
  WireErrorBody,
  WireFatura,
  WireInvoiceCurrent,
  WireInvoiceLegacyResponse,
  WirePix,
} from '../gateway/wire.types';
import {
  API_UPDATED,
  CURRENT_API_VERSION,
  LEGACY_API_VERSION,
  REFUNDABLE_CODES,
  statusText,
} from './constants';
import { dayAsDateTime, localDateTime, localIso } from './dates';
import type { SandboxError } from './errors';
import { formatBrl, toDecimalNumber, toDecimalString } from './money';
import type { SandboxInvoiceRecord } from './types';

/** What rendering needs besides the record: where the sandbox listens, the time, the provider name. */
export interface RenderContext {
  baseUrl: string;
  now: Date;
  by: string;
}

function api(ctx: RenderContext, version: string): WireApiInfo {
  return { by: ctx.by, version, updated: API_UPDATED };
}

/** Envelope of the current shape (§2.1) for a resource kind. */
export function envelope(ctx: RenderContext, type: string): WireEnvelope {
  return {
    date: localDateTime(ctx.now),
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

const urls = (ctx: RenderContext, rec: SandboxInvoiceRecord) => ({
  page: `${ctx.baseUrl}/_sandbox/invoices/${rec.id}/page`,
  qr: `${ctx.baseUrl}/_sandbox/qr/${rec.id}.png`,
  slip: `${ctx.baseUrl}/_sandbox/billet/${rec.id}.svg`,
});

function refunded(rec: SandboxInvoiceRecord): number {
  return rec.refunds.reduce((sum, r) => sum + r.amountCents, 0);
}

function canRefundMore(rec: SandboxInvoiceRecord): boolean {
  return REFUNDABLE_CODES.includes(rec.statusCode) && rec.grossCents - refunded(rec) > 0;
}

function lastRefundAt(rec: SandboxInvoiceRecord): string | null {
  const last = rec.refunds[rec.refunds.length - 1];
  return last ? localDateTime(new Date(last.at)) : null;
}

function pixOf(ctx: RenderContext, rec: SandboxInvoiceRecord): WirePix {
  if (!rec.pix) return { image: null, payload: null, status: null, ete: { id: null, refund_id: null } };
  return {
    image: urls(ctx, rec).qr,
    payload: rec.pix.payload,
    status: rec.pix.status,
    ete: { id: rec.pix.endToEndId, refund_id: rec.pix.refundId },
  };
}

function billetOf(ctx: RenderContext, rec: SandboxInvoiceRecord): WireInvoiceCurrent['billet'] {
  return rec.billet
    ? { line: rec.billet.line, barcode: rec.billet.barcode, download: null, image: urls(ctx, rec).slip }
    : null;
}

function paidAt(rec: SandboxInvoiceRecord): string | null {
  return rec.payment.paidAt ? localDateTime(new Date(rec.payment.paidAt)) : null;
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
    created_at: localDateTime(new Date(rec.createdAt)),
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
        system: paidAt(rec),
        customer: paidAt(rec),
        captured: rec.payment.method === 'card' ? paidAt(rec) : null,
      },
    },
    split: { id: null, rules: null },
    refunds: {
      possbile: canRefundMore(rec),
      total: rec.refunds.length ? toDecimalNumber(refundedCents) : null,
      brl: rec.refunds.length ? formatBrl(refundedCents) : null,
      data: lastRefundAt(rec),
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

/**
 * The legacy shape (§2.2, version 1.x). `cancel` renders the cancellation variant: no `uuid`, `req: null` and a
 * status carrying only `text`.
 */
export function legacyResponse(
  ctx: RenderContext,
  rec: SandboxInvoiceRecord,
  variant: 'due-date' | 'cancel',
): WireInvoiceLegacyResponse {
  const u = urls(ctx, rec);
  const status = statusText(rec.statusCode);
  const refundedCents = refunded(rec);
  const paid = rec.payment.paidCents !== null;
  const listPrice = rec.products.reduce((sum, p) => sum + p.amountCents * p.qnt, 0) + rec.shippingCents;
  const fatura: WireFatura = {
    moeda: 'BRL',
    id: rec.id,
    ...(variant === 'due-date' ? { uuid: rec.seq } : {}),
    invoice_id: rec.invoiceId,
    token: rec.token,
    cartao: {
      tid: null,
      token: null,
      bin: rec.card?.bin ?? null,
      numero: rec.card ? `${rec.card.bin}******${rec.card.last4}` : null,
      bandeira: rec.card?.brand ?? null,
    },
    criacao: localDateTime(new Date(rec.createdAt)),
    vencimento: { dia: rec.dueDay, original: rec.originalDueDay },
    assinatura: { id: null },
    secure: { id: rec.token, url: u.page },
    parcelas: rec.installments,
    produtos: rec.products.map((p) => ({
      id: p.id,
      description: p.title,
      price_cents: p.amountCents,
      quantity: p.qnt,
      created_at: localIso(new Date(rec.createdAt)),
      updated_at: localIso(new Date(rec.updatedAt)),
      price: formatBrl(p.amountCents),
    })),
    cliente: { id: rec.customerId, name: rec.client.name ?? '', external: null },
    externo: { url: rec.orderUrl ?? u.page, fatura: u.page, bankSlipUrl: rec.billet ? u.slip : u.page },
    valores: {
      bruto: toDecimalString(rec.grossCents),
      liquido: toDecimalString(rec.grossCents - rec.feesCents),
      original: toDecimalString(listPrice),
      juros: toDecimalString(0),
      desconto: toDecimalString(rec.discountCents),
      taxas: toDecimalString(rec.feesCents),
    },
    pix: pixOf(ctx, rec),
    billet: billetOf(ctx, rec),
    status:
      variant === 'cancel'
        ? { text: status.text }
        : {
            text: status.text,
            sub_text: status.sub_text,
            code: rec.statusCode,
            title: status.title,
            description: status.description,
          },
    pagamento: {
      total: paid ? toDecimalString(rec.payment.paidCents ?? 0) : null,
      taxas: paid ? toDecimalString(rec.feesCents) : null,
      datas: {
        sistema: paidAt(rec),
        cliente: paidAt(rec),
        capturado: rec.payment.method === 'card' ? paidAt(rec) : null,
      },
    },
    nossoNumero: rec.billet?.ourNumber ?? '',
    referencia: rec.referrer,
    split: { id: null, rules: null },
    refunds: {
      possbile: canRefundMore(rec),
      total: toDecimalNumber(refundedCents),
      brl: formatBrl(refundedCents),
      data: lastRefundAt(rec),
    },
  };
  return {
    date: localDateTime(ctx.now),
    success: true,
    error: false,
    type: 'invoice',
    api: api(ctx, LEGACY_API_VERSION),
    tipo: 'invoice',
    ...(variant === 'cancel' ? { req: null } : {}),
    fatura,
  };
}
