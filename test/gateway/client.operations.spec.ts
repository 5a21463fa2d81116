import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { CreateInvoiceParams } from '../../src/gateway/types';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, TEST_CARDS } from '../../src/sandbox';
import { daysFromToday, validCreateParams } from './fixtures';
import { Harness, startHarness, TOKEN } from './support/harness';
import type { RecordedRequest } from './support/recording-proxy';

/** Every operation over real HTTP against the sandbox, checking both what went over the wire and what came back. */
describe('GatewayClient operations (sandbox over HTTP)', () => {
  let h: Harness;
  let client: GatewayClient;

  beforeAll(async () => {
    h = await startHarness({ autoProcessCards: false });
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.reset();
    client = h.client();
  });

  const only = (method: string, path: string): RecordedRequest => {
    const matching = h.proxy.apiRequests().filter((r) => r.method === method && r.path === path);
    expect(matching).toHaveLength(1);
    return matching[0];
  };

  function params(overrides: (p: CreateInvoiceParams) => void = () => undefined): CreateInvoiceParams {
    const p = validCreateParams();
    overrides(p);
    return p;
  }

  it('createInvoice (PIX) sends the §4.2 body with exact decimal amounts and reads the current shape', async () => {
    const input = params((p) => {
      p.payment.discountCents = 10;
      p.payment.products[0].discountCents = 5;
      p.payment.products[0].unitAmountCents = 1010; // 10.1: a float-trap amount
      p.payment.webhook = 'http://127.0.0.1:9/hook';
    });
    const invoice = await client.createInvoice(input);

    const req = only('POST', '/invoices');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({
      client: {
        name: 'Maria Silva',
        document: '52998224725',
        email: 'maria@example.com',
        address: input.client.address,
      },
      payment: {
        product_type: 1,
        id: 'order-1',
        type: 1,
        due_at: input.payment.dueAt,
        referrer: 'order-1-a1',
        webhook: 'http://127.0.0.1:9/hook',
        discount: 0.1,
        products: [{ id: 'p1', title: 'Mug', qnt: 2, discount: 0.05, amount: 10.1 }],
      },
      shipping: { amount: 15.9 },
    });
    expect(req.body).toContain('"amount":10.1');

    expect(invoice.status.code).toBe(1);
    expect(invoice.method).toBe('pix');
    expect(invoice.referrer).toBe('order-1-a1');
    expect(invoice.amounts.grossCents).toBe(2 * 1010 - 5 - 10 + 1590);
    expect(invoice.pix?.payload).toBeTruthy();
    expect(invoice.dueDate).toBe(input.payment.dueAt);
    expect(invoice.source.shape).toBe('current');
    expect(h.sandbox.controls.getInvoice(invoice.id)?.referrer).toBe('order-1-a1');
  });

  it('createInvoice (bank slip, digital, checkout integration) maps type, product type and ecommerce', async () => {
    const invoice = await client.createInvoice(
      params((p) => {
        p.payment.method = 'billet';
        p.payment.physical = false;
        delete p.client.address;
        p.ecommerce = { storeId: 7, checkout: 3 };
      }),
    );
    const req = only('POST', '/invoices').json as { payment: Record<string, unknown>; ecommerce: unknown };
    expect(req.payment.type).toBe(2);
    expect(req.payment.product_type).toBe(2);
    expect(req.ecommerce).toEqual({ store_id: 7, checkout: 3 });
    expect(invoice.method).toBe('billet');
    expect(invoice.billet?.line).toMatch(/\d/);
    expect(invoice.billet?.url).toMatch(/^http/);
  });

  it('createInvoice (card) sends the card block and keeps only brand and last four digits', async () => {
    const card = h.sandbox.controls.createCardToken({
      number: TEST_CARDS.approved,
      holder: 'MARIA SILVA',
      expiry: '12/30',
    });
    const invoice = await client.createInvoice(
      params((p) => {
        p.payment.method = 'card';
        p.payment.installments = 2;
        p.payment.card = { token: card.token, valid: '12/30', holderName: 'MARIA SILVA' };
      }),
    );
    const req = only('POST', '/invoices').json as { payment: Record<string, unknown> };
    expect(req.payment.type).toBe(3);
    expect(req.payment.installments).toBe(2);
    expect(req.payment.card).toEqual({
      saved: 0,
      tokenize: 0,
      token: card.token,
      valid: '12/30',
      holder: { name: 'MARIA SILVA' },
    });
    expect(invoice.method).toBe('card');
    expect(invoice.card).toEqual({ brand: card.brand, last4: '1111' });
    expect(JSON.stringify(invoice)).not.toContain(card.token);
  });

  it('listInvoices sends the A7 query and reads one page', async () => {
    for (let i = 0; i < 3; i++) await client.createInvoice(params((p) => (p.payment.referrer = `ref-${i}`)));
    h.proxy.reset();
    const page = await client.listInvoices({ page: 2, limit: 2 });
    const req = only('GET', '/invoices');
    expect(Object.fromEntries(req.query)).toEqual({ page: '2', limit: '2' });
    expect(page).toMatchObject({ page: 2, limit: 2, total: 3, pages: 2 });
    expect(page.items.map((i) => i.referrer)).toEqual(['ref-2']);

    const filtered = await client.listInvoices({ referrer: 'ref-1', status: 1, paymentId: 'order-1' });
    expect(filtered.items.map((i) => i.referrer)).toEqual(['ref-1']);
    const last = h.proxy.apiRequests().at(-1)!;
    expect(Object.fromEntries(last.query)).toEqual({
      page: '1',
      limit: '100',
      referrer: 'ref-1',
      status: '1',
      payment_id: 'order-1',
    });
  });

  it('findInvoiceByReferrer finds the newest exact match, or null', async () => {
    await client.createInvoice(params((p) => (p.payment.referrer = 'dup')));
    const second = await client.createInvoice(params((p) => (p.payment.referrer = 'dup')));
    await client.createInvoice(params((p) => (p.payment.referrer = 'dup-not')));
    expect((await client.findInvoiceByReferrer('dup'))?.id).toBe(second.id);
    expect(await client.findInvoiceByReferrer('nobody')).toBeNull();
  });

  it('findInvoiceByReferrer with a payment id: only the invoices the service lists under it, by number too', async () => {
    const ours = await client.createInvoice(params((p) => (p.payment.referrer = 'shared')));
    const theirs = await client.createInvoice(
      params((p) => {
        p.payment.referrer = 'shared';
        p.payment.id = 'their-order';
      }),
    );
    expect((await client.findInvoiceByReferrer('shared'))?.id).toBe(theirs.id);
    expect((await client.findInvoiceByReferrer('shared', { paymentId: 'order-1' }))?.id).toBe(ours.id);
    const asked = h.proxy.apiRequests().filter((r) => r.method === 'GET' && r.path === '/invoices');
    expect(Object.fromEntries(asked[asked.length - 1].query)).toMatchObject({
      referrer: 'shared',
      payment_id: 'order-1',
    });
    const one = { paymentId: 'order-1', id: theirs.id };
    expect(await client.findInvoiceByReferrer('shared', one)).toBeNull();
    await expect(client.findInvoiceByReferrer('shared', { paymentId: ' ' })).rejects.toMatchObject({
      fields: { paymentId: ['is required (a non-empty string)'] },
    });
  });

  it('changeDueDate sends payment.invoice_id + payment.due_at and reads the legacy shape', async () => {
    const created = await client.createInvoice(params());
    const dueAt = daysFromToday(20);
    const invoice = await client.changeDueDate({ invoiceId: created.invoiceId, dueAt });
    expect(only('PATCH', '/invoices').json).toEqual({
      payment: { invoice_id: created.invoiceId, due_at: dueAt },
    });
    expect(invoice.source.shape).toBe('legacy');
    expect(invoice.dueDate).toBe(dueAt);
    expect(invoice.id).toBe(created.id);
    expect(invoice.status.code).toBe(1);
  });

  it('cancelInvoice sends DELETE with a JSON body payment.id and reads code 6', async () => {
    const created = await client.createInvoice(params());
    const invoice = await client.cancelInvoice({ id: created.id });
    const req = only('DELETE', '/invoices');
    expect(req.json).toEqual({ payment: { id: created.id } });
    expect(req.headers['content-type']).toBe('application/json');
    expect(invoice.status.code).toBe(6);
    expect(invoice.source.shape).toBe('legacy');
    expect(h.sandbox.controls.getInvoice(created.id)?.statusCode).toBe(6);
  });

  it('refundInvoice sends the A8 body and reads the refund', async () => {
    const created = await client.createInvoice(params());
    await h.sandbox.controls.pay(created.id);
    const invoice = await client.refundInvoice({
      id: created.id,
      invoiceId: created.invoiceId,
      amountCents: 1010,
    });
    expect(only('PUT', '/invoices').json).toEqual({
      payment: { id: created.id, invoice_id: created.invoiceId, amount: 10.1 },
    });
    expect(invoice.status.code).toBe(8);
    expect(invoice.refunds.totalCents).toBe(1010);
    expect(invoice.refunds.possible).toBe(true);
  });

  it('addTrackingCode sends the A9 body and reads the tracking', async () => {
    const created = await client.createInvoice(params());
    await h.sandbox.controls.pay(created.id);
    const result = await client.addTrackingCode({
      invoiceId: created.invoiceId,
      code: 'BR123456789BR',
      carrier: 'Correios',
    });
    expect(only('POST', '/invoices/tracking').json).toEqual({
      payment: { invoice_id: created.invoiceId },
      tracking: { code: 'BR123456789BR', carrier: 'Correios' },
    });
    expect(result).toMatchObject({
      invoiceId: created.invoiceId,
      code: 'BR123456789BR',
      carrier: 'Correios',
      url: null,
    });
    expect(result.createdAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('addTrackingCode uses the profile tracking body function when given', async () => {
    const created = await client.createInvoice(params());
    await h.sandbox.controls.pay(created.id);
    const custom = h.client({
      profile: {
        tracking: {
          body: (t) => ({
            payment: { invoice_id: t.invoice_id },
            tracking: { code: String(t.code).toUpperCase() },
          }),
        },
      },
    });
    const result = await custom.addTrackingCode({ invoiceId: created.invoiceId, code: 'br999br' });
    expect(only('POST', '/invoices/tracking').json).toEqual({
      payment: { invoice_id: created.invoiceId },
      tracking: { code: 'BR999BR' },
    });
    expect(result.code).toBe('BR999BR');
  });

  it('validateWebhookToken sends OPTIONS with a JSON body: 200 → true, 404 → false', async () => {
    const hook = h.sandbox.controls.registerWebhook({ url: 'http://127.0.0.1:9/hook' });
    await expect(client.validateWebhookToken(hook.token)).resolves.toBe(true);
    await expect(client.validateWebhookToken('not-a-token-we-issued')).resolves.toBe(false);
    const reqs = h.proxy.apiRequests();
    expect(reqs.map((r) => [r.method, r.path, r.json])).toEqual([
      ['OPTIONS', '/webhooks', { token: hook.token }],
      ['OPTIONS', '/webhooks', { token: 'not-a-token-we-issued' }],
    ]);
  });

  it('resendWebhook sends COPY { url, events, webhook } and reads the §4.8 answer', async () => {
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      received.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = h.sandbox.controls.registerWebhook({ url });
      const result = await client.resendWebhook({ url, events: 'invoice.update', webhook: hook.id });
      expect(only('COPY', '/webhooks').json).toEqual({ url, events: 'invoice.update', webhook: hook.id });
      expect(result.success).toBe(true);
      expect(result.event).toBe('invoice.update');
      expect(result.total).toBe(1);
      expect(result.responses[0]).toMatchObject({ webhook: hook.id, httpStatus: 200 });
      expect(received).toEqual(['/hook']);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('authenticate uses Basic credentials; the issued token works for credentialStatus', async () => {
    const token = await client.authenticate({
      clientId: DEFAULT_CLIENT_ID,
      clientSecret: DEFAULT_CLIENT_SECRET,
    });
    const req = only('GET', '/auth/token');
    const basic = Buffer.from(`${DEFAULT_CLIENT_ID}:${DEFAULT_CLIENT_SECRET}`).toString('base64');
    expect(req.headers.authorization).toBe(`Basic ${basic}`);
    expect(token.tokenType).toBe('Bearer');
    expect(token.expiresIn).toBeGreaterThan(0);
    expect(token.scopes).toContain('invoice.write');
    const status = await h.client({ accessToken: token.accessToken }).credentialStatus();
    expect(status.active).toBe(true);
    expect(status.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2} /);
  });

  it('credentialStatus of a static token: active, its scopes, no expiry', async () => {
    const status = await client.credentialStatus();
    expect(status).toMatchObject({ active: true, expiresAt: null });
    expect(status.scopes).toEqual(expect.arrayContaining(['invoice.read', 'invoice.refund']));
  });

  it('listConsumers, listMediations and listChargebacks read their A10 pages', async () => {
    const a = await client.createInvoice(params());
    const b = await client.createInvoice(params((p) => (p.payment.referrer = 'second')));
    await h.sandbox.controls.pay(a.id);
    await h.sandbox.controls.pay(b.id);
    await h.sandbox.controls.contest(a.id, { kind: 'mediation', reason: 'not received' });
    await h.sandbox.controls.contest(b.id, { kind: 'chargeback', reason: 'fraud' });

    const consumers = await client.listConsumers({ limit: 10 });
    expect(consumers.items.length).toBeGreaterThanOrEqual(1);
    expect(consumers.items[0].id).toBeTruthy();
    const mediations = await client.listMediations();
    expect(mediations.items).toHaveLength(1);
    expect(mediations.items[0]).toMatchObject({
      invoiceId: a.invoiceId,
      reason: 'not received',
      amountCents: a.amounts.grossCents,
    });
    const chargebacks = await client.listChargebacks({ page: 1, limit: 5 });
    expect(chargebacks.items).toHaveLength(1);
    expect(chargebacks.items[0]).toMatchObject({ invoiceId: b.invoiceId, reason: 'fraud' });
    expect(Object.fromEntries(h.proxy.apiRequests().at(-1)!.query)).toEqual({ page: '1', limit: '5' });
  });

  it('sends the bearer header on every request, webhook operations included (§5.3)', async () => {
    const created = await client.createInvoice(params());
    await client.listInvoices();
    await client.changeDueDate({ invoiceId: created.invoiceId, dueAt: daysFromToday(5) });
    await client.cancelInvoice({ id: created.id });
    await client.validateWebhookToken('whatever-token');
    await client.credentialStatus();
    await client.listConsumers();
    const requests = h.proxy.apiRequests();
    expect(requests.map((r) => r.method)).toEqual([
      'POST',
      'GET',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'GET',
      'GET',
    ]);
    for (const r of requests) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a connection source overrides base URL and token on every call (runtime settings)', async () => {
    let token = 'wrong-token';
    const dynamic = h.client(
      { baseUrl: 'http://127.0.0.1:1', accessToken: 'unused' },
      { gatewayConfig: async () => ({ baseUrl: h.proxy.url, accessToken: token, mode: 'sandbox' }) },
    );
    await expect(dynamic.credentialStatus()).rejects.toMatchObject({ kind: 'authentication' });
    token = TOKEN;
    await expect(dynamic.credentialStatus()).resolves.toMatchObject({ active: true });
    expect(h.proxy.apiRequests().map((r) => r.headers.authorization)).toEqual([
      'Bearer wrong-token',
      `Bearer ${TOKEN}`,
    ]);
  });
});
