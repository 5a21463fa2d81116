import type { WireFatura, WireInvoiceLegacyResponse } from './wire.types';
import { LEGACY_API_VERSION, statusText } from './constants';
import { localDateTime, localIso } from './dates';
import { formatBrl, toDecimalNumber, toDecimalString } from './money';
import {
  api,
  billetOf,
  canRefundMore,
  lastRefundAt,
  paidAt,
  pixOf,
  refunded,
  urls,
  type RenderContext,
} from './shapes';
import type { SandboxInvoiceRecord } from './types';

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
    criacao: localDateTime(new Date(rec.createdAt), ctx.timeZone),
    vencimento: { dia: rec.dueDay, original: rec.originalDueDay },
    assinatura: { id: null },
    secure: { id: rec.token, url: u.page },
    parcelas: rec.installments,
    produtos: rec.products.map((p) => ({
      id: p.id,
      description: p.title,
      price_cents: p.amountCents,
      quantity: p.qnt,
      created_at: localIso(new Date(rec.createdAt), ctx.timeZone),
      updated_at: localIso(new Date(rec.updatedAt), ctx.timeZone),
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
        sistema: paidAt(rec, ctx.timeZone),
        cliente: paidAt(rec, ctx.timeZone),
        capturado: rec.payment.method === 'card' ? paidAt(rec, ctx.timeZone) : null,
      },
    },
    nossoNumero: rec.billet?.ourNumber ?? '',
    referencia: rec.referrer,
    split: { id: null, rules: null },
    refunds: {
      possbile: canRefundMore(rec),
      total: toDecimalNumber(refundedCents),
      brl: formatBrl(refundedCents),
      data: lastRefundAt(rec, ctx.timeZone),
    },
  };
  return {
    date: localDateTime(ctx.now, ctx.timeZone),
    success: true,
    error: false,
    type: 'invoice',
    api: api(ctx, LEGACY_API_VERSION),
    tipo: 'invoice',
    ...(variant === 'cancel' ? { req: null } : {}),
    fatura,
  };
}
