import { DemoOrder } from '../../examples/demo-store/order.entity';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import { Timeline } from '../../examples/demo-store/timeline';
import { runWalkthrough, WalkthroughResult } from '../../examples/demo-store/walkthrough';
import { InvoiceRecord } from '../../src/index';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { openDemoDatabase, startQuietDemo, testConfig } from './support';

const STEPS = [
  'pix.create',
  'pix.pay',
  'pix.customer_pays',
  'pix.webhook',
  'pix.ship',
  'pix.tracking',
  'card.create',
  'card.tokenize',
  'card.pay',
  'card.webhook',
  'card.refund',
  'card.refunded',
  'billet.create',
  'billet.pay',
  'billet.cancel',
];

describeEachDatabase('demo store walkthrough (npm start -- --once)', (kind) => {
  let db: TestDatabase;
  let config: DemoConfig;
  let demo: RunningDemo;
  let result: WalkthroughResult;
  const lines: string[] = [];

  beforeAll(async () => {
    db = await openDemoDatabase(kind);
    config = testConfig(db);
    demo = await startQuietDemo(config);
    result = await runWalkthrough({
      storeUrl: demo.storeUrl,
      sandboxUrl: demo.sandbox!.url,
      adminKey: config.adminKey,
      timeline: new Timeline({ write: (line) => lines.push(line), color: false }),
    });
  }, 90_000);
  afterAll(async () => {
    await demo?.close();
    await db?.destroy();
  });

  it('boots configured through the admin settings API, with a working credential', () => {
    expect(demo.credentials.ok).toBe(true);
    expect(demo.credentials.baseUrl).toBe(demo.sandbox!.url);
    expect(demo.webhookUrl).toBe(`${demo.storeUrl}/webhooks/invoice-payments`);
  });

  it('passes every step, in order', () => {
    expect(result.steps.filter((s) => !s.ok)).toEqual([]);
    expect(result.steps.map((s) => s.name)).toEqual(STEPS);
    expect(result.ok).toBe(true);
  });

  it('PIX order: paid through a webhook, shipped, and its tracking code reached the service', async () => {
    const order = result.orders.pix!;
    expect(order).toMatchObject({
      payment_status: 'captured',
      fulfillment_status: 'shipped',
      status: 'completed',
    });
    expect(order.payment_events.find((e) => e.code === 5)?.source).toBe('webhook');
    const invoice = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ orderId: order.id });
    const atService = demo.sandbox!.controls.getInvoice(invoice.gatewayId!)!;
    expect(atService.statusCode).toBe(5);
    expect(atService.tracking?.code).toBe(order.tracking!.code);
    expect(result.trackingAtService).toBe(order.tracking!.code);
    expect(atService.client.address).toMatchObject({ state: 'SP', zipcode: '01310200', country: 'BRA' });
    const outbox = await db.dataSource.getRepository(TrackingOutbox).findOneByOrFail({ orderId: order.id });
    expect(outbox).toMatchObject({ code: order.tracking!.code, status: 'sent' });
    const paid = demo
      .sandbox!.controls.deliveries()
      .find((d) => d.invoiceId === invoice.gatewayId && d.statusCode === 5);
    expect(paid).toMatchObject({ url: demo.webhookUrl, state: 'delivered' });
  });

  it('card order: paid, then refunded in full at the service', async () => {
    const order = result.orders.card!;
    expect(order).toMatchObject({ payment_status: 'refunded', payment_method: 'card' });
    expect(order.refunded_total).toBe(order.total);
    const invoice = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ orderId: order.id });
    expect(invoice).toMatchObject({ statusCode: 9, refundedCents: order.total, cardLast4: '1111' });
    const atService = demo.sandbox!.controls.getInvoice(invoice.gatewayId!)!;
    expect(atService.refunds.map((r) => r.amountCents)).toEqual([order.total]);
  });

  it('bank-slip order: canceled in the store and at the service', async () => {
    const order = result.orders.billet!;
    expect(order).toMatchObject({ status: 'canceled', payment_status: 'canceled', payment_method: 'billet' });
    const invoice = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ orderId: order.id });
    expect(demo.sandbox!.controls.getInvoice(invoice.gatewayId!)!.statusCode).toBe(6);
  });

  it('stores the orders in the database the demo migrated', async () => {
    const rows = await db.dataSource.getRepository(DemoOrder).find({ order: { displayId: 'ASC' } });
    expect(rows.map((o) => [o.displayId, o.paymentStatus, o.status])).toEqual([
      [1001, 'captured', 'completed'],
      [1002, 'refunded', 'pending'],
      [1003, 'canceled', 'canceled'],
    ]);
  });

  it('prints a readable timeline: the PIX code and QR, the webhook, the tracking code, the refund', () => {
    const text = lines.join('\n');
    const pix = result.orders.pix!;
    expect(text).toContain('PIX copy-and-paste: 000201');
    expect(text).toMatch(/[▄▀█]{20}/); // the terminal QR code
    expect(text).toContain(`Webhook received`);
    expect(text).toContain(`Tracking code ${pix.tracking!.code} posted to the service`);
    expect(text).toContain('refunded: R$ 105,90');
    expect(text).toContain('Walkthrough complete: 15 steps passed.');
  });

  it('starts again on the same database: migrations already ran, orders and settings kept', async () => {
    await demo.close();
    demo = await startQuietDemo(config);
    expect(demo.credentials.ok).toBe(true);
    const res = await fetch(`${demo.storeUrl}/admin/orders`, {
      headers: { Authorization: `Bearer ${config.adminKey}` },
    });
    expect(res.status).toBe(200);
    const orders = (await res.json()) as Array<{ display_id: number; payment_status: string }>;
    expect(orders.map((o) => [o.display_id, o.payment_status])).toEqual([
      [1003, 'canceled'],
      [1002, 'refunded'],
      [1001, 'captured'],
    ]);
  });
});

describeEachDatabase('demo store walkthrough, when webhooks cannot reach the store', (kind) => {
  let db: TestDatabase;
  let demo: RunningDemo;

  beforeAll(async () => {
    db = await openDemoDatabase(kind);
  });
  afterAll(async () => {
    await demo?.close();
    await db?.destroy();
  });

  it('reports the steps that failed, ends their stories, and runs the others', async () => {
    // A public URL nothing listens on: the service's deliveries never arrive.
    const config = { ...testConfig(db), publicUrl: 'http://127.0.0.1:9' };
    demo = await startQuietDemo(config);
    const lines: string[] = [];
    const result = await runWalkthrough({
      storeUrl: demo.storeUrl,
      sandboxUrl: demo.sandbox!.url,
      adminKey: config.adminKey,
      timeline: new Timeline({ write: (line) => lines.push(line), color: false }),
      waitMs: 1500,
    });
    expect(result.ok).toBe(false);
    expect(result.steps.map((s) => `${s.name}:${s.ok}`)).toEqual([
      'pix.create:true',
      'pix.pay:true',
      'pix.customer_pays:true',
      'pix.webhook:false',
      'card.create:true',
      'card.tokenize:true',
      'card.pay:true',
      'card.webhook:false',
      'billet.create:true',
      'billet.pay:true',
      'billet.cancel:true',
    ]);
    expect(result.steps[3].error).toMatch(
      /gave up waiting for the webhook to mark the order paid after 1500 ms/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/✖ pix\.webhook: gave up waiting/));
    expect(lines[lines.length - 1]).toMatch(/✖ Walkthrough failed: pix\.webhook, card\.webhook$/);
  }, 60_000);
});
