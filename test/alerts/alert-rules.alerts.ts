import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { IsNull } from 'typeorm';
import { InvoicePaymentProvider, InvoiceRecord } from '../../src/index';
import { ORDER_PAYMENT_PORT } from '../../src/core/ports';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { type RecordingOrderPort, waitFor } from '../support/app';
import { describeEachDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { type RootApp, startRootApp } from '../support/root-app';
import { registerSdk } from '../observability/otel-sdk';
import { type Expectation, testRules } from './promtool';
import { InvoiceStatusHistory } from '../../src/persistence/invoice.entity';

/*
 * Each rule of docs/prometheus-rules.yml, evaluated by promtool on series taken from real scrapes: a store on the
 * module, the OpenTelemetry SDK's Prometheus exporter served on loopback, scraped over HTTP after each step of a
 * scene. Scrape k stands for minute k (promtool replays them); the rules' windows and `for:` do the rest.
 */

const TOKEN = `tok-${randomUUID()}`;

/** One scene: a fresh database, service, store and SDK; `scrape()` appends a real scrape (the next minute). */
async function startScene(kind: DatabaseKind) {
  const sdk = registerSdk();
  const db: TestDatabase = await openCheckoutDatabase(kind);
  const sandbox: SandboxServer = await startSandbox({
    tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }],
    webhookRetry: { attempts: 2, baseDelayMs: 20 },
  });
  const host: RootApp = await startRootApp(db, sandbox, {
    gateway: { baseUrl: sandbox.url, accessToken: TOKEN, mode: 'sandbox', retry: { maxAttempts: 1 } },
    shipping: { pollIntervalMs: 50, maxAttempts: 2, backoff: { initialDelayMs: 20, maxDelayMs: 100 } },
    reconciliation: { intervalMs: 0 },
  });
  const exporter: Server = createServer((req, res) => sdk.prometheus.getMetricsRequestHandler(req, res));
  await new Promise<void>((resolve) => exporter.listen(0, '127.0.0.1', resolve));
  const metricsUrl = `http://127.0.0.1:${(exporter.address() as AddressInfo).port}/metrics`;
  const scrapes: string[] = [];
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  return {
    db,
    sandbox,
    host,
    scrapes,
    async scrape() {
      const answer = await fetch(metricsUrl);
      if (answer.status !== 200) throw new Error(`scrape: HTTP ${answer.status}`);
      scrapes.push(await answer.text());
    },
    /** A PIX checkout; `paid` also pays it at the service and waits for the store to settle. */
    async checkout(paid: boolean) {
      const order = makeOrder();
      const session = await host.app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
      const rec = await record(session.data.invoiceRecordId);
      if (paid) {
        await sandbox.controls.pay(rec.gatewayId!);
        await waitFor(async () => (await record(rec.id)).statusCode === 5, 10_000, 'paid');
      }
      return { order, rec };
    },
    async ship(orderId: string, outcome: 'sent' | 'failed') {
      const events = host.app.get(EventEmitter2);
      await events.emitAsync('order.shipment_created', { orderId, trackingCode: 'BR123456789BR' });
      const outbox = db.dataSource.getRepository(TrackingOutbox);
      await waitFor(async () => (await outbox.countBy({ orderId, status: outcome })) === 1, 15_000, outcome);
    },
    async close() {
      await new Promise((resolve) => exporter.close(resolve));
      await host.close();
      await sandbox.close();
      await db.destroy();
      await sdk.shutdown();
    },
  };
}
type Scene = Awaited<ReturnType<typeof startScene>>;

describeEachDatabase('the documented alert rules against real scrapes', (kind) => {
  let scene: Scene;
  beforeEach(async () => {
    scene = await startScene(kind);
    await scene.scrape(); // minute 0: the process has just started
  });
  afterEach(() => scene?.close());

  it('a healthy store: checkouts paid by webhook, a shipment posted, no rule fires', async () => {
    const { order } = await scene.checkout(true);
    await scene.host.settle();
    await scene.scrape();
    await scene.ship(order.id, 'sent');
    await scene.scrape();
    await scene.checkout(true);
    await scene.host.settle();
    await scene.scrape();
    const quiet = [5, 20, 60, 180, 420].map((at) => ({ at, firing: {} }));
    await expect(testRules(scene.scrapes, quiet)).resolves.toContain('SUCCESS');
  });

  it('PaidInvoicesNotReachingOrders: a paid invoice the order port keeps refusing', async () => {
    scene.host.app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT).down = true;
    const { rec } = await scene.checkout(true);
    const history = scene.db.dataSource.getRepository(InvoiceStatusHistory);
    const waiting = { invoiceRecordId: rec.id, applied: true, notifiedAt: IsNull() };
    await waitFor(async () => (await history.countBy(waiting)) > 0, 10_000, 'a change waiting for the port');
    await scene.scrape();
    // The wait the rule is about, without waiting it: the change was applied 20 minutes ago.
    await history.update(waiting, { createdAt: new Date(Date.now() - 20 * 60_000) });
    await scene.scrape();
    const expected: Expectation[] = [
      { at: 4, firing: {} },
      { at: 10, firing: { PaidInvoicesNotReachingOrders: [{}] } },
    ];
    await expect(testRules(scene.scrapes, expected)).resolves.toContain('SUCCESS');
  });

  it('PaymentServiceFailing: every call fails for a quarter of an hour', async () => {
    const { rec } = await scene.checkout(false);
    await scene.scrape();
    scene.sandbox.controls.addFault({ method: 'GET', path: '/invoices*', status: 500 });
    for (let minute = 2; minute <= 17; minute++) {
      await expect(scene.host.app.get(GatewayClient).findInvoiceById(rec.gatewayId!)).rejects.toMatchObject({
        kind: 'unavailable',
      });
      await scene.scrape();
    }
    const expected: Expectation[] = [
      { at: 6, firing: {} },
      { at: 17, firing: { PaymentServiceFailing: [{}] } },
    ];
    await expect(testRules(scene.scrapes, expected)).resolves.toContain('SUCCESS');
  });

  it('PaymentDeadLetters and PaymentAlertRaised: a tracking code the service keeps refusing', async () => {
    const { order } = await scene.checkout(true);
    await scene.host.settle();
    await scene.scrape();
    scene.sandbox.controls.addFault({ method: 'POST', path: '/invoices/tracking', status: 500 });
    await scene.ship(order.id, 'failed');
    await scene.scrape();
    const deadLetter = { PaymentDeadLetters: [{ invoice_payments_queue: 'tracking' }] };
    const alert = { PaymentAlertRaised: [{ invoice_payments_alert_kind: 'tracking_failed' }] };
    const expected: Expectation[] = [
      { at: 1, firing: {} },
      { at: 10, firing: { ...deadLetter, ...alert } },
      // An hour on, the alert is history; the dead letter waits until someone handles it.
      { at: 180, firing: deadLetter },
    ];
    await expect(testRules(scene.scrapes, expected)).resolves.toContain('SUCCESS');
  });

  it('PaymentWebhooksStopped: checkouts go on, no webhook reaches the store', async () => {
    // The service is told a webhook URL where nothing listens: it never reaches the store.
    await scene.host
      .admin('put', 'settings', { publicWebhookUrl: 'http://127.0.0.1:9/webhooks' })
      .expect(200);
    await scene.checkout(true).catch(() => undefined);
    await scene.scrape();
    await scene.checkout(false);
    await scene.scrape();
    const expected: Expectation[] = [
      { at: 60, firing: { PaymentWebhooksStopped: [{}] } },
      { at: 420, firing: {} },
    ];
    await expect(testRules(scene.scrapes, expected)).resolves.toContain('SUCCESS');
  });
});
