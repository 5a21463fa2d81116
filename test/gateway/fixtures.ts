import type { CreateInvoiceParams } from '../../src/gateway/types';
import type { WireInvoiceLegacyResponse } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse } from '../support/wire-responses';

/**
 * Response payloads built field for field from the spec's tables (§2.1 current shape, §2.2 legacy shape), with
 * values as the service would send them. Each builder returns a fresh object, so tests may mutate it.
 */

const api = (version: string) => ({ by: 'Gateway', version, updated: '2025-01-10' });

/** §2.1: response to invoice creation (a bank slip, so it carries PIX data as well, A3). */
export function currentBilletResponse(): WireInvoiceCurrentResponse {
  return {
    date: '2026-11-21 10:00:00',
    success: true,
    error: false,
    type: 'invoice',
    api: api('3.4'),
    __seconds: 0.112,
    invoice: {
      currency: 'BRL',
      id: '123456',
      uuid: '9f0c6a1e-77a1-4a43-9a7c-3d2f1c4f7b10',
      invoice_id: 'inv_8H2kQ',
      token: 'tok_invoice_abc',
      referrer: 'order-42',
      card: {
        type: null,
        tid: null,
        token: null,
        bin: null,
        last4: null,
        number: null,
        brand: null,
        acquirer: null,
        expire: null,
        holder: { name: null, document: null },
      },
      created_at: '2026-11-21 09:59:58',
      due_at: { day: '2026-11-24 23:59:59', original: '2026-11-24 23:59:59' },
      links: { url: 'https://pay.example.com/i/123456' },
      installments: '1',
      products: [
        { image: 'https://x/p.png', description: 'Mug', quantity: 2, discount: '0.00', price_cents: 2550 },
      ],
      customer: { id: 'cus_1' },
      subscription: { id: null },
      secure: { id: null, url: null },
      amount: { gross: 1234.56, net: 1200.1, fees: 34.46, discount: 0, shipping: '15.90' },
      pix: {
        image: 'https://pay.example.com/qr/123456.png',
        payload:
          '00020126580014BR.GOV.BCB.PIX0136a629532e-7693-4846-852d-1bbff817b5a8520400005303986540512.345802BR',
        status: 'qr_code_created',
        ete: { id: null, refund_id: null },
      },
      billet: {
        line: '23793.38128 60000.000003 00000.000400 1 84340000012345',
        barcode: '23791843400000123453381260000000000000000040',
        download: 'https://pay.example.com/b/123456.pdf',
        image: 'https://pay.example.com/b/123456.png',
      },
      payment: { total: null, fees: null, dates: { system: null, customer: null, captured: null } },
      split: { id: null, rules: null },
      refunds: { possbile: null, total: null, brl: null, data: null },
      webhook: null,
      status: {
        text: 'pending',
        sub_text: 'pending',
        code: 1,
        title: 'Aguardando pagamento',
        description: 'A fatura aguarda o pagamento',
        details: null,
      },
    },
  };
}

/** §2.1 shape of a paid card invoice (A12: only brand, last4, bin, expire and holder name are filled). */
export function currentCardResponse(): WireInvoiceCurrentResponse {
  const body = currentBilletResponse();
  body.invoice.card = {
    type: 'credit',
    tid: null,
    token: null,
    bin: '411111',
    last4: '1111',
    number: null,
    brand: 'visa',
    acquirer: null,
    expire: '12/30',
    holder: { name: 'MARIA SILVA', document: null },
  };
  Object.assign(body.invoice, { billet: null });
  body.invoice.pix = {
    image: null,
    payload: null,
    status: null,
    ete: { id: null, refund_id: null },
  } as never;
  body.invoice.status = { ...body.invoice.status, code: 5, text: 'paid', sub_text: 'captured' };
  body.invoice.payment = {
    total: 1234.56,
    fees: 34.46,
    dates: { system: '2026-11-21 10:01:00', customer: null, captured: '2026-11-21 10:01:00' },
  };
  return body;
}

/** §2.2: response to a due-date change (`uuid` a number, `vencimento` as `YYYY-MM-DD`). */
export function legacyDueDateResponse(): WireInvoiceLegacyResponse {
  return {
    date: '2026-11-21 11:00:00',
    success: true,
    error: false,
    type: 'invoice',
    tipo: 'invoice',
    api: api('1.9'),
    fatura: {
      moeda: 'BRL',
      id: '123456',
      uuid: 987654,
      invoice_id: 'inv_8H2kQ',
      token: null,
      cartao: { tid: null, token: null, bin: null, numero: null, bandeira: null },
      criacao: '2026-11-21 09:59:58',
      vencimento: { dia: '2026-11-30', original: '2026-11-24' },
      assinatura: { id: null },
      secure: { id: 'sec_1', url: 'https://pay.example.com/s/1' },
      parcelas: 1,
      produtos: [
        {
          id: 'p1',
          description: 'Mug',
          price_cents: 2550,
          quantity: 2,
          created_at: '2026-11-21T09:59:58-03:00',
          updated_at: '2026-11-21T09:59:58-03:00',
          price: 'R$ 25,50',
        },
      ],
      cliente: { id: 'cus_1', name: 'Maria Silva', external: null },
      externo: {
        url: 'https://pay.example.com/i/123456',
        fatura: 'https://pay.example.com/f/123456',
        bankSlipUrl: 'https://pay.example.com/b/123456.pdf',
      },
      valores: {
        bruto: '1.234,56',
        liquido: 'R$ 1.200,10',
        original: '1234.56',
        juros: '0.00',
        desconto: '0',
        taxas: '34.46',
      },
      pix: {
        image: 'https://pay.example.com/qr/123456.png',
        payload:
          '00020126580014BR.GOV.BCB.PIX0136a629532e-7693-4846-852d-1bbff817b5a8520400005303986540512.345802BR',
        status: 'pending',
        ete: { id: 'E12345678202611211000abcdef12345', refund_id: null },
      },
      billet: null,
      status: {
        text: 'pending',
        sub_text: 'pending',
        code: 1,
        title: 'Aguardando pagamento',
        description: 'A fatura aguarda o pagamento',
      },
      pagamento: { total: null, taxas: null, datas: { sistema: null, cliente: null, capturado: null } },
      nossoNumero: '00000004',
      referencia: 'order-42',
      split: { id: null, rules: null },
      refunds: { possbile: false, total: 0, brl: 'R$ 0,00', data: null },
    },
  };
}

/** §2.2: response to a cancellation (`req` present, no `uuid`, status with `text` only). */
export function legacyCancelResponse() {
  const body = legacyDueDateResponse() as unknown as Record<string, unknown> & {
    fatura: Record<string, unknown>;
  };
  delete body.fatura.uuid;
  body.fatura.status = { text: 'canceled' };
  body.req = null;
  return body;
}

/** §2.2 shape of a card invoice with a masked number and a brand. */
export function legacyCardResponse(): WireInvoiceLegacyResponse {
  const body = legacyDueDateResponse();
  body.fatura.cartao = {
    tid: 'tid-1',
    token: 'card-token-secret',
    bin: '411111',
    numero: '411111******1111',
    bandeira: 'visa',
  };
  body.fatura.pix = { image: null, payload: null, status: null, ete: { id: null, refund_id: null } };
  body.fatura.externo = { url: 'https://pay.example.com/i/1', fatura: '', bankSlipUrl: '' };
  return body;
}

/** Valid `createInvoice` input: a domestic customer, one physical product, PIX. */
export function validCreateParams(): CreateInvoiceParams {
  return {
    client: {
      name: 'Maria Silva',
      document: '52998224725',
      email: 'maria@example.com',
      address: {
        street: 'Rua A',
        number: '10',
        district: 'Centro',
        city: 'São Paulo',
        state: 'SP',
        zipcode: '01001000',
        country: 'BRA',
      },
    },
    payment: {
      method: 'pix',
      physical: true,
      id: 'order-1',
      referrer: 'order-1-a1',
      dueAt: daysFromToday(10),
      products: [{ id: 'p1', title: 'Mug', quantity: 2, discountCents: 0, unitAmountCents: 2550 }],
    },
    shippingCents: 1590,
  };
}

/** `YYYY-MM-DD` of today plus `days` (UTC). */
export function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
