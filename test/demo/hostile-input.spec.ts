import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import { DemoOrder } from '../../examples/demo-store/order.entity';
import type { OrderView, PaymentView } from '../../examples/demo-store/views';
import { InvoiceRecord } from '../../src/index';
import { DEFAULT_TOKEN } from '../../src/sandbox/index';
import { rawRequest } from '../sandbox/helpers';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { ADDRESS, CUSTOMER, openDemoDatabase, startQuietDemo, storeCaller, testConfig } from './support';

const ORDER = {
  items: [{ product_id: 'prod_cafe', quantity: 1 }],
  customer: CUSTOMER,
  shipping_address: ADDRESS,
};

describeEachDatabase('demo store against an attacker', (kind) => {
  let db: TestDatabase;
  let config: DemoConfig;
  let demo: RunningDemo;

  beforeAll(async () => {
    db = await openDemoDatabase(kind);
    config = testConfig(db);
    demo = await startQuietDemo(config);
  }, 60_000);
  afterAll(async () => {
    await demo?.close();
    await db?.destroy();
  });

  const call = storeCaller(
    () => demo,
    () => config,
  );
  const orderCount = () => db.dataSource.getRepository(DemoOrder).count();
  const invoiceCount = () => db.dataSource.getRepository(InvoiceRecord).count();

  it('a NUL byte or a long string as an order id: 400 naming id, never 500', async () => {
    const cases: Array<[string, string, boolean]> = [
      ['GET', '/store/orders/%00', false],
      ['POST', '/store/orders/%00/payment', false],
      ['GET', `/store/orders/${'a'.repeat(200)}`, false],
      ['GET', '/admin/orders/%00', true],
      ['POST', '/admin/orders/%00/cancel', true],
      ['POST', '/admin/orders/x%00/refund', true],
      ['POST', '/admin/invoice-payments/invoices/%00/cancel', true],
      ['GET', '/admin/invoice-payments/invoices/%00/history', true],
    ];
    for (const [method, path, admin] of cases) {
      const res = await call(method, path, method === 'POST' ? { method: 'pix' } : undefined, admin);
      expect([method, path.slice(0, 50), res.status]).toEqual([method, path.slice(0, 50), 400]);
      expect(JSON.stringify(res.body)).toMatch(/\bid\b/);
    }
  });

  it('control characters in the order are refused when it is placed, naming the field; nothing stored', async () => {
    const before = await orderCount();
    const cases: Array<[unknown, RegExp]> = [
      [
        { ...ORDER, customer: { ...CUSTOMER, first_name: 'Ana\u0000' } },
        /customer\.first_name must not contain/,
      ],
      [
        { ...ORDER, customer: { ...CUSTOMER, last_name: 'Costa\u202Egpj' } },
        /customer\.last_name must not contain/,
      ],
      [
        { ...ORDER, shipping_address: { ...ADDRESS, city: 'BH\u001b[2J' } },
        /shipping_address\.city must not/,
      ],
      [
        { ...ORDER, shipping_address: { ...ADDRESS, address_1: 'Rua\r\nX' } },
        /shipping_address\.address_1 must/,
      ],
      [{ ...ORDER, customer: { ...CUSTOMER, first_name: 42 } }, /customer\.first_name must be a string/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/store/orders', body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.message)).toMatch(message);
    }
    expect(await orderCount()).toBe(before);
  });

  it('a non-string or control-laden card holder is a 400 naming it; nothing sent or stored', async () => {
    const order = (await call('POST', '/store/orders', ORDER)).body as unknown as OrderView;
    const before = await invoiceCount();
    for (const holder of [7, 'ANA\u0007', 'A'.repeat(300)]) {
      const res = await call('POST', `/store/orders/${order.id}/payment`, {
        method: 'card',
        card: { token: 'tok_x', expiry: '12/40', holder_name: holder },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.message)).toMatch(/card\.holder_name/);
    }
    for (const expiry of ['13/30', ['12/40'], '12/2040']) {
      const res = await call('POST', `/store/orders/${order.id}/payment`, {
        method: 'card',
        card: { token: 'tok_x', expiry, holder_name: 'ANA' },
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual(['card.expiry must be MM/YY']); // the field named once, as the others
    }
    expect(await invoiceCount()).toBe(before);
  });

  it('a 404 does not repeat the path; no x-powered-by; helmet headers on every answer', async () => {
    const res = await call('GET', '/store/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Not found' });
    for (const answer of [res, await call('GET', '/store/products')]) {
      expect(answer.headers.get('x-powered-by')).toBeNull();
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(answer.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it("the body parser's refusals keep their 4xx (too large, unknown charset), never a 500; nothing stored", async () => {
    const before = await orderCount();
    const big = JSON.stringify({ ...ORDER, items: Array.from({ length: 3000 }, () => ORDER.items[0]) });
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['/store/orders', big, {}, 413],
      [
        '/admin/invoice-payments/settings',
        JSON.stringify({ wireProfile: { x: 'y'.repeat(200_000) } }),
        {},
        413,
      ],
      [
        '/store/orders',
        JSON.stringify(ORDER),
        { 'Content-Type': 'application/json; charset=x-unknown' },
        415,
      ],
    ];
    for (const [path, body, headers, status] of cases) {
      const res = await fetch(`${demo.storeUrl}${path}`, {
        method: path.endsWith('settings') ? 'PUT' : 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${config.adminKey}`,
          ...headers,
        },
        body,
      });
      const answer = (await res.json()) as { statusCode: number; message: string };
      expect([path, res.status]).toEqual([path, status]);
      expect(answer.statusCode).toBe(status);
      expect(answer.message).not.toMatch(/Something went wrong|at |node_modules/);
    }
    expect(await orderCount()).toBe(before);
  });

  it('the service unreachable at checkout: 502 with a plain message, no internal details', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const settings = '/admin/invoice-payments/settings';
    const saved = await call(
      'PUT',
      settings,
      { baseUrl: `http://127.0.0.1:${closedPort}`, accessToken: DEFAULT_TOKEN },
      true,
    );
    expect(saved.status).toBe(200);
    try {
      const order = (await call('POST', '/store/orders', ORDER)).body as unknown as OrderView;
      const res = await call('POST', `/store/orders/${order.id}/payment`, { method: 'pix' });
      expect(res.status).toBe(502);
      expect(res.body.message).toBe(
        'The payment service could not be reached. Nothing was charged; try again in a moment.',
      );
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect|createInvoice/);
      // A delivery the module refuses (it names no invoice of this store): its 4xx reaches the service as such (the
      // store's catch-all would make it a 500), and the route asks nothing of the unreachable service.
      const token = Buffer.from(':a-token-never-seen-before').toString('base64');
      const hook = await fetch(`${demo.storeUrl}/webhooks/invoice-payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Webhook: token },
        body: JSON.stringify({ event: 'invoice.update', invoice: { id: '1' } }),
      });
      expect(hook.status).toBe(422);
      expect(JSON.stringify(await hook.json())).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    } finally {
      await call('PUT', settings, { baseUrl: demo.gatewayUrl, accessToken: DEFAULT_TOKEN }, true);
    }
    const order = (await call('POST', '/store/orders', ORDER)).body as unknown as OrderView;
    expect((await call('POST', `/store/orders/${order.id}/payment`, { method: 'pix' })).status).toBe(200);
  });

  it("the sandbox's controls refuse a foreign Host and a text/plain post: nothing paid, no webhook added", async () => {
    const order = (await call('POST', '/store/orders', ORDER)).body as unknown as OrderView;
    const pay = await call('POST', `/store/orders/${order.id}/payment`, { method: 'pix' });
    const invoice = (pay.body.payment as PaymentView).invoice_number!;
    const sandbox = demo.sandbox!;
    const hooks = sandbox.controls.webhooks().length;
    const pathOf = `/_sandbox/invoices/${invoice}/pay`;

    // A page in the developer's browser: a "simple" cross-origin POST needs no preflight.
    const simple = await rawRequest(
      `${sandbox.url}${pathOf}`,
      'POST',
      { 'Content-Type': 'text/plain' },
      '{}',
    );
    expect(simple.status).toBe(415);
    const form = await rawRequest(`${sandbox.url}/_sandbox/webhooks`, 'POST', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    // DNS rebinding: the attacker's name resolves to 127.0.0.1, the Host header still says the attacker's name.
    const rebound = { Host: 'attacker.example:4010', 'Content-Type': 'application/json' };
    expect((await rawRequest(`${sandbox.url}${pathOf}`, 'POST', rebound, '{}')).status).toBe(403);
    const read = await rawRequest(`${sandbox.url}/_sandbox/webhooks`, 'GET', { Host: 'attacker.example' });
    expect(read.status).toBe(403);
    expect(read.text).not.toMatch(/token/);

    expect(sandbox.controls.getInvoice(invoice)!.statusCode).toBe(1);
    expect(sandbox.controls.webhooks()).toHaveLength(hooks);
    expect(
      ((await call('GET', `/store/orders/${order.id}`)).body as unknown as OrderView).payment_status,
    ).toBe('awaiting');
  });
});
