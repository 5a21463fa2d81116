import type { WireInvoiceLegacyResponse } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse, WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const DECIMAL = /^\d+\.\d{2}$/;

const INVOICE_KEYS = [
  'currency',
  'id',
  'uuid',
  'invoice_id',
  'token',
  'referrer',
  'card',
  'created_at',
  'due_at',
  'links',
  'installments',
  'products',
  'customer',
  'subscription',
  'secure',
  'amount',
  'pix',
  'billet',
  'payment',
  'split',
  'refunds',
  // Not in §2.1: the invoice's last tracking code, the read-back convention of A9.
  'tracking',
  'webhook',
  'status',
].sort();

const keys = (o: unknown): string[] => Object.keys(o as object).sort();

describe('sandbox: response shapes (§2.1 current, §2.2 legacy)', () => {
  let sandbox: SandboxServer;
  // 13:00 UTC is 10:00 in São Paulo (A2).
  const clock = () => new Date('2026-11-21T13:00:00Z');
  beforeAll(async () => {
    sandbox = await startSandbox({ clock });
  });
  afterAll(() => sandbox.close());

  const billetBody = () =>
    createBody({
      payment: {
        type: 2,
        due_at: '2026-11-30',
        products: [{ id: 'sku-1', title: 'Mug', qnt: 2, amount: 1234.5, discount: 0.5 }],
      },
      shipping: { amount: 10 },
    });

  it('renders creation in the current shape with exactly the fields of §2.1', async () => {
    const res = await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', billetBody());
    expect(res.status).toBe(200);
    const b = res.body;
    expect(keys(b)).toEqual(['__seconds', 'api', 'date', 'error', 'invoice', 'success', 'type']);
    expect(b).toMatchObject({ success: true, error: false, type: 'invoice', date: '2026-11-21 10:00:00' });
    expect(keys(b.api)).toEqual(['by', 'updated', 'version']);
    expect(b.api.version).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof b.__seconds).toBe('number');
    const inv = b.invoice;
    expect(keys(inv)).toEqual(INVOICE_KEYS);
    expect(keys(inv.card)).toEqual(
      ['type', 'tid', 'token', 'bin', 'last4', 'number', 'brand', 'acquirer', 'expire', 'holder'].sort(),
    );
    expect(keys(inv.card.holder)).toEqual(['document', 'name']);
    expect(inv.created_at).toBe('2026-11-21 10:00:00');
    expect(inv.due_at).toEqual({ day: '2026-11-30 00:00:00', original: '2026-11-30 00:00:00' });
    expect(keys(inv.links)).toEqual(['url']);
    expect(inv.installments).toBe('1');
    expect(inv.products).toEqual([
      { image: '', description: 'Mug', quantity: 2, discount: '0.50', price_cents: 123450 },
    ]);
    expect(keys(inv.customer)).toEqual(['id']);
    expect(inv.subscription).toEqual({ id: null });
    expect(keys(inv.secure)).toEqual(['id', 'url']);
    expect(keys(inv.amount)).toEqual(['discount', 'fees', 'gross', 'net', 'shipping']);
    expect(inv.amount).toEqual({ gross: 2478.5, net: 2475.01, fees: 3.49, discount: 0.5, shipping: '10.00' });
    expect(keys(inv.pix)).toEqual(['ete', 'image', 'payload', 'status']);
    expect(keys(inv.pix.ete)).toEqual(['id', 'refund_id']);
    expect(inv.pix.status).toBe('qr_code_created');
    expect(inv.pix.image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_sandbox\/qr\/\d+\.png$/);
    expect(keys(inv.billet)).toEqual(['barcode', 'download', 'image', 'line']);
    expect(keys(inv.payment)).toEqual(['dates', 'fees', 'total']);
    expect(keys(inv.payment.dates)).toEqual(['captured', 'customer', 'system']);
    expect(inv.split).toEqual({ id: null, rules: null });
    expect(inv.refunds).toEqual({ possbile: false, total: null, brl: null, data: null });
    expect(inv.webhook).toBeNull();
    expect(keys(inv.status)).toEqual(['code', 'description', 'details', 'sub_text', 'text', 'title']);
    expect(inv.status).toMatchObject({ code: 1, text: 'pending', sub_text: 'pending', details: null });
    expect(typeof inv.id).toBe('string');
    expect(typeof inv.uuid).toBe('string');
  });

  it('gives PIX invoices no bank slip and card invoices neither PIX nor slip', async () => {
    const pix = await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', createBody());
    expect(pix.body.invoice.billet).toBeNull();
    expect(pix.body.invoice.pix.payload).toEqual(expect.any(String));
    const { token } = sandbox.controls.createCardToken({
      number: '4111111111111111',
      holder: 'Ana',
      expiry: '12/30',
    });
    const card = await call<WireInvoiceCurrentResponse>(
      sandbox.url,
      'POST',
      '/invoices',
      createBody({
        payment: { type: 3, card: { saved: 0, tokenize: 0, token, valid: '12/30', holder: { name: 'Ana' } } },
      }),
    );
    expect(card.body.invoice.billet).toBeNull();
    expect(card.body.invoice.pix).toEqual({
      image: null,
      payload: null,
      status: null,
      ete: { id: null, refund_id: null },
    });
    expect(card.body.invoice.card).toEqual({
      type: null,
      tid: null,
      token: null,
      bin: '411111',
      last4: '1111',
      number: null,
      brand: 'visa',
      acquirer: null,
      expire: '12/30',
      holder: { name: 'Ana', document: null },
    });
  });

  it('renders list items in the current shape with a pagination block (A7)', async () => {
    const res = await call<WireInvoiceListResponse>(sandbox.url, 'GET', '/invoices?limit=1');
    expect(res.body).toMatchObject({ success: true, error: false, type: 'invoices' });
    expect(res.body.api.version).toMatch(/^3\./);
    expect(keys(res.body.pagination)).toEqual(['limit', 'page', 'pages', 'total']);
    expect(res.body.invoices).toHaveLength(1);
    expect(keys(res.body.invoices[0])).toEqual(INVOICE_KEYS);
    expect(keys(res.body.invoices[0].refunds)).toEqual(['brl', 'data', 'possbile', 'total']);
  });

  it('renders the due-date change in the legacy shape, uuid a number, new day in vencimento.dia', async () => {
    const created = await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', billetBody());
    const inv = created.body.invoice;
    const res = await call<WireInvoiceLegacyResponse>(sandbox.url, 'PATCH', '/invoices', {
      payment: { invoice_id: inv.invoice_id, due_at: '2026-12-05' },
    });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(keys(b)).toEqual(['api', 'date', 'error', 'fatura', 'success', 'tipo', 'type']);
    expect(b).toMatchObject({ success: true, error: false, type: 'invoice', tipo: 'invoice' });
    expect(b.date).toMatch(DATETIME);
    expect(b.api.version).toMatch(/^1\.\d+\.\d+$/);
    const f = b.fatura;
    expect(keys(f)).toEqual(
      [
        'moeda',
        'id',
        'uuid',
        'invoice_id',
        'token',
        'cartao',
        'criacao',
        'vencimento',
        'assinatura',
        'secure',
        'parcelas',
        'produtos',
        'cliente',
        'externo',
        'valores',
        'pix',
        'billet',
        'status',
        'pagamento',
        'nossoNumero',
        'referencia',
        'split',
        'refunds',
      ].sort(),
    );
    expect(typeof f.uuid).toBe('number');
    expect(f.id).toBe(inv.id);
    expect(f.invoice_id).toBe(inv.invoice_id);
    expect(keys(f.cartao)).toEqual(['bandeira', 'bin', 'numero', 'tid', 'token']);
    expect(f.criacao).toMatch(DATETIME);
    expect(f.vencimento).toEqual({ dia: '2026-12-05', original: '2026-11-30' });
    expect(f.vencimento.dia).toMatch(DAY);
    expect(f.assinatura).toEqual({ id: null });
    expect(keys(f.secure)).toEqual(['id', 'url']);
    expect(f.parcelas).toBe(1);
    expect(f.produtos).toHaveLength(1);
    expect(keys(f.produtos[0])).toEqual([
      'created_at',
      'description',
      'id',
      'price',
      'price_cents',
      'quantity',
      'updated_at',
    ]);
    expect(f.produtos[0]).toMatchObject({
      id: 'sku-1',
      description: 'Mug',
      price_cents: 123450,
      quantity: 2,
      price: 'R$ 1.234,50',
    });
    expect(f.produtos[0].created_at).toMatch(ISO_OFFSET);
    expect(f.produtos[0].created_at).toBe('2026-11-21T10:00:00-03:00');
    expect(keys(f.cliente)).toEqual(['external', 'id', 'name']);
    expect(keys(f.externo)).toEqual(['bankSlipUrl', 'fatura', 'url']);
    expect(keys(f.valores)).toEqual(['bruto', 'desconto', 'juros', 'liquido', 'original', 'taxas']);
    for (const v of Object.values(f.valores)) expect(v).toMatch(DECIMAL);
    expect(f.valores).toMatchObject({
      bruto: '2478.50',
      desconto: '0.50',
      original: '2479.00',
      taxas: '3.49',
      liquido: '2475.01',
    });
    expect(keys(f.pix)).toEqual(['ete', 'image', 'payload', 'status']);
    expect(f.billet).not.toBeNull();
    expect(keys(f.status)).toEqual(['code', 'description', 'sub_text', 'text', 'title']);
    expect(f.status.code).toBe(1);
    expect(keys(f.pagamento)).toEqual(['datas', 'taxas', 'total']);
    expect(keys(f.pagamento.datas)).toEqual(['capturado', 'cliente', 'sistema']);
    expect(f.nossoNumero).toMatch(/^\d{17}$/);
    expect(f.referencia).toBe('order-1');
    expect(f.split).toEqual({ id: null, rules: null });
    expect(f.refunds).toEqual({ possbile: false, total: 0, brl: 'R$ 0,00', data: null });
  });

  it('renders the cancellation in the legacy shape without uuid, with req null and status text only', async () => {
    const created = await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', createBody());
    const res = await call<WireInvoiceLegacyResponse>(sandbox.url, 'DELETE', '/invoices', {
      payment: { id: created.body.invoice.id },
    });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['api', 'date', 'error', 'fatura', 'req', 'success', 'tipo', 'type']);
    expect(res.body.req).toBeNull();
    expect(res.body.api.version).toMatch(/^1\./);
    expect('uuid' in res.body.fatura).toBe(false);
    expect(res.body.fatura.status).toEqual({ text: 'canceled' });
    expect(res.body.fatura.billet).toBeNull();
  });
});
