import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { INestApplication } from '@nestjs/common';
import {
  InvoicePaymentProvider,
  InvoicePaymentsAlert,
  InvoicePaymentsEvents,
  InvoiceRecord,
  ORDER_PAYMENT_PORT,
} from '../../src/index';
import { LOOKUP_BURST } from '../../src/webhooks/invoice-lookup';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { RecordingProxy } from '../gateway/support/recording-proxy';
import { RecordingOrderPort, waitFor } from '../support/app';
import { RootApp, startRootApp } from '../support/root-app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { postDelivery, tokenLine } from './support';

const TOKEN = 'tok_confirm_0123456789';
/** Name resolution as DNS would answer, plus a public-looking name that resolves into a private network. */
const ADDRESSES: Record<string, string> = { localhost: '127.0.0.1', 'internal.example': '10.0.0.7' };
/** For a test whose work (an outage's retries; a thousand deliveries) takes a busy machine past the default 30 s. */
const LOADED_MS = 90_000;

/**
 * Issue 12: a delivery is a trigger, not the truth. Everything runs over HTTP: the module's route, the sandbox
 * behind a recording proxy (to count what reaches the service), on both databases.
 */
describeEachDatabase('webhooks: confirmed with the service before money moves', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let proxy: RecordingProxy;
  let host: RootApp;
  let app: INestApplication;
  const alerts: InvoicePaymentsAlert[] = [];

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({
      tokens: [
        { token: TOKEN, scopes: ['invoice.read', 'invoice.write', 'invoice.update', 'invoice.refund'] },
      ],
    });
    proxy = await RecordingProxy.start(sandbox.url);
    host = await startRootApp(db, sandbox, {
      gateway: {
        baseUrl: proxy.url,
        accessToken: TOKEN,
        mode: 'sandbox',
        retry: { maxAttempts: 1 },
        // A host name that resolves to a private address, for the admin checks.
        lookup: async (h) => [{ address: ADDRESSES[h] ?? '93.184.216.34', family: 4 }],
      },
      webhooks: {
        inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50, retryMaxDelayMs: 200 },
      },
    });
    app = host.app;
    host.on(InvoicePaymentsEvents.Alert, (a: InvoicePaymentsAlert) => alerts.push(a));
  });
  afterAll(async () => {
    await host?.close();
    await proxy?.close();
    await sandbox?.close();
    await db?.destroy();
  });
  afterEach(() => sandbox.controls.clearFaults());

  const port = () => app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT);
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const told = (recordId: string) => port().changes.filter((c) => c.invoiceRecordId === recordId);
  const serviceToken = () => sandbox.controls.webhooks().find((w) => w.id === 'default')!.token;
  const settle = () => host.settle();
  /** A checked-out PIX order whose "created" delivery has been applied. */
  const openInvoice = async () => {
    const order = makeOrder();
    const session = await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
    await settle();
    const rec = await record(session.data.invoiceRecordId);
    return { order, rec, id: rec.gatewayId! };
  };
  /** A delivery body with the sandbox's current view of the invoice, its status replaced. */
  const bodyClaiming = (id: string, code: number, extra: Record<string, unknown> = {}) => {
    const invoice = structuredClone(sandbox.controls.renderInvoice(id)!);
    invoice.status = { ...invoice.status, code, text: `claims ${code}` };
    Object.assign(invoice, extra);
    return {
      event: 'invoice.update',
      delivery_id: randomUUID(),
      webhook: 'default',
      sent_at: '2026-11-23 10:00:00',
      invoice,
    };
  };
  const post = (body: unknown, token = serviceToken()) =>
    postDelivery(host.url, '/webhooks/invoice-payments', body, ['default', tokenLine('', token)]);

  it('forged "paid", "refunded" and "canceled" with a valid service token change nothing: the service says 1', async () => {
    const { rec, id } = await openInvoice();
    const before = told(rec.id).length;
    proxy.reset();
    for (const [code, extra] of [
      [
        5,
        {
          amount: { gross: 0.01, net: 0.01, fees: 0, discount: 0, shipping: '0.00' },
          payment: { total: 0.01 },
        },
      ],
      [9, {}],
      [6, {}],
    ] as const) {
      expect((await post(bodyClaiming(id, code, extra))).status).toBe(200);
    }
    await settle();
    // The service was asked, and said 1.
    const lookups = proxy.apiRequests().filter((r) => r.method === 'GET' && r.path.startsWith('/invoices'));
    expect(lookups.some((r) => r.query.get('id') === id)).toBe(true);
    expect((await record(rec.id)).statusCode).toBe(1);
    expect((await record(rec.id)).paidCents).toBeNull();
    expect(told(rec.id)).toHaveLength(before);
    const entries = await db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: id });
    expect(entries.every((e) => e.state === 'processed')).toBe(true);
  });

  it('a body that lags behind or runs ahead of the service applies what the service says', async () => {
    const { rec, id } = await openInvoice();
    await sandbox.controls.pay(id);
    await sandbox.controls.waitForDeliveries();
    // Behind: says 1 while the service says 5. Ahead: says 9 (refunded) while the service says 5.
    expect((await post(bodyClaiming(id, 1))).status).toBe(200);
    expect((await post(bodyClaiming(id, 9))).status).toBe(200);
    await settle();
    expect((await record(rec.id)).statusCode).toBe(5);
    expect(told(rec.id).map((c) => c.current.code)).toEqual([1, 5]);
    expect(told(rec.id).at(-1)?.current.orderPaymentStatus).toBe('captured');
  });

  it('a payment of the wrong amount gives amount_mismatch and requires_action, never captured', async () => {
    const { rec, id } = await openInvoice();
    await sandbox.controls.pay(id, { amountCents: rec.amountCents - 1 });
    await settle();
    await waitFor(async () => (await record(rec.id)).statusCode === 5, 10_000, 'the paid status recorded');
    await waitFor(() => alerts.some((a) => a.kind === 'amount_mismatch' && a.invoiceRecordId === rec.id));
    const change = told(rec.id).at(-1)!;
    expect(change.current).toMatchObject({
      code: 5,
      orderPaymentStatus: 'requires_action',
      sessionStatus: 'requires_more',
    });
    expect(change.alert).toBe('amount_mismatch');
    expect((await record(rec.id)).amountMismatch).toBe(true);
    const status = await app
      .get(InvoicePaymentProvider)
      .getPaymentStatus({ data: { invoiceRecordId: rec.id } });
    expect(status.status).not.toBe('captured');
  });

  it('a bank slip below its flat fee (R$ 2,00, net -1,49) is created, paid and confirmed paid, no alert', async () => {
    const item = { id: 'item_1', title: 'Adesivo', quantity: 1, unit_price: 200, requires_shipping: false };
    const order = makeOrder({ total: 200, items: [item], shipping_total: 0, discount_total: 0 });
    const session = await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'billet'));
    expect(session.data).toMatchObject({ creationState: 'created', statusCode: 1, amountCents: 200 });
    const id = session.data.gatewayId!;
    expect(sandbox.controls.renderInvoice(id)?.amount).toMatchObject({ gross: 2, net: -1.49, fees: 3.49 });
    await sandbox.controls.pay(id);
    await sandbox.controls.waitForDeliveries();
    const recId = session.data.invoiceRecordId;
    await waitFor(async () => (await record(recId)).statusCode === 5, 10_000, 'the paid status recorded');
    await settle();
    expect(await record(recId)).toMatchObject({
      grossCents: 200,
      paidCents: 200,
      netCents: -149,
      feesCents: 349,
    });
    expect(told(recId).at(-1)!.current).toMatchObject({ code: 5, orderPaymentStatus: 'captured' });
    expect(alerts.filter((a) => a.invoiceRecordId === recId || a.kind === 'implausible_amount')).toEqual([]);
  });

  it(
    'the service down while processing: the delivery waits and is applied once it is back',
    async () => {
      const { rec, id } = await openInvoice();
      sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 4 });
      await sandbox.controls.pay(id);
      await sandbox.controls.waitForDeliveries();
      await waitFor(async () => (await record(rec.id)).statusCode === 5, 15_000, 'applied after the outage');
      const paidEntries = () =>
        db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: id, statusCode: 5 });
      await waitFor(
        async () => (await paidEntries()).every((e) => e.state === 'processed'),
        15_000,
        'processed',
      );
      const entries = await paidEntries();
      expect(entries[0].attempts).toBeGreaterThan(1);
    },
    LOADED_MS,
  );

  it(
    '1,000 deliveries with distinct forged tokens cost no validation call and a few lookups',
    async () => {
      const { id } = await openInvoice();
      proxy.reset();
      const started = Date.now();
      const statuses: number[] = [];
      for (let i = 0; i < 1000; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, (_, j) => post(bodyClaiming(id, 5), `forged-${i + j}-${randomUUID()}`)),
        );
        statuses.push(...batch.map((r) => r.status));
      }
      await settle();
      expect(proxy.apiRequests().filter((r) => r.method === 'OPTIONS')).toHaveLength(0);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      const lookups = proxy.apiRequests().filter((r) => r.method === 'GET' && r.query.get('id') === id);
      // A burst, then one a second (`webhooks.lookupWindowMs`), however many deliveries named the invoice.
      expect(lookups.length).toBeLessThanOrEqual(LOOKUP_BURST + Math.ceil((Date.now() - started) / 1000));
    },
    LOADED_MS,
  );

  it('bodies nested 10,000 deep (top level, inside the invoice, inside card) → 400, and the process goes on', async () => {
    const { id } = await openInvoice();
    // Written as text: 10,000 levels are more than JSON.stringify itself can walk.
    const deep = '{"d":'.repeat(10_000) + '"x"' + '}'.repeat(10_000);
    const withDeep = (body: object, marker: string) => JSON.stringify(body).replace(`"${marker}"`, deep);
    const top = withDeep({ ...bodyClaiming(id, 1), extra: 'DEEP' }, 'DEEP');
    const inInvoice = withDeep(bodyClaiming(id, 1, { extra: 'DEEP' }), 'DEEP');
    const inCard = withDeep(bodyClaiming(id, 1, { card: { holder: 'DEEP' } }), 'DEEP');
    for (const body of [top, inInvoice, inCard]) {
      expect(body.length).toBeGreaterThan(60_000);
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(String(res.body.message)).toMatch(/nested deeper than 64/);
    }
    expect((await post(bodyClaiming(id, 1))).status).toBe(200);
  });

  describe('the admin API', () => {
    let trap: http.Server;
    let hits = 0;
    beforeAll(async () => {
      trap = http.createServer((_req, res) => {
        hits++;
        res.end('{}');
      });
      await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    });
    afterAll(() => new Promise<void>((r) => trap.close(() => r())));

    const put = (body: Record<string, unknown>) => host.admin('put', 'settings', body);

    it('refuses base URLs that would carry the token to a private host in production, and a new host without the token', async () => {
      const trapPort = (trap.address() as AddressInfo).port;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ mode: 'production', baseUrl: 'http://api.example.com', accessToken: 'tok_x' }, 'baseUrl'],
        [{ mode: 'production', baseUrl: 'https://169.254.169.254/latest', accessToken: 'tok_x' }, 'baseUrl'],
        [{ mode: 'production', baseUrl: 'https://10.1.2.3', accessToken: 'tok_x' }, 'baseUrl'],
        [{ mode: 'production', baseUrl: `https://[::1]:${trapPort}`, accessToken: 'tok_x' }, 'baseUrl'],
        [{ mode: 'production', baseUrl: `https://localhost:${trapPort}`, accessToken: 'tok_x' }, 'baseUrl'],
        [{ mode: 'production', baseUrl: 'https://internal.example', accessToken: 'tok_x' }, 'baseUrl'],
        [{ mode: 'production', publicWebhookUrl: 'http://shop.example/hook' }, 'publicWebhookUrl'],
        [{ baseUrl: `http://127.0.0.1:${trapPort}` }, 'accessToken'],
      ];
      for (const [body, field] of cases) {
        const res = await put(body);
        expect({ body, status: res.status, fields: Object.keys(res.body.errors ?? {}) }).toEqual({
          body,
          status: 400,
          fields: expect.arrayContaining([field]),
        });
      }
      const settings = await host.admin('get', 'settings');
      expect(settings.body).toMatchObject({ baseUrl: proxy.url, mode: 'sandbox' });
      await host.admin('post', 'credentials/check');
      expect(hits).toBe(0);
    });

    it('numeric query parameters out of range answer 400 naming the field', async () => {
      for (const [query, field] of [
        ['page=1e20', 'page'],
        ['status=99999999999', 'status'],
        ['limit=1000', 'limit'],
      ]) {
        const res = await host.admin('get', `invoices?${query}`);
        expect({ query, status: res.status, fields: Object.keys(res.body.errors ?? {}) }).toEqual({
          query,
          status: 400,
          fields: [field],
        });
      }
    });
  });
});
