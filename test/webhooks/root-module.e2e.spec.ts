import { randomBytes } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import {
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  InvoiceRecord,
  ORDER_PAYMENT_PORT,
} from '../../src/index';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { startSandbox, type SandboxServer, type DeliveryLogEntry } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase, RecordingOrderPort } from '../checkout/support';
import { HostApp, sandboxGateway, startHostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { postDelivery, tokenLine, waitFor } from './support';

/** The whole module as a store registers it: checkout creates, the webhook route moves the order. */
describeEachDatabase('webhooks in the root module', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: HostApp;
  let app: INestApplication;
  let url: string;
  let provider: InvoicePaymentProvider;
  let port: RecordingOrderPort;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ autoProcessCards: false });
    host = await startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: sandboxGateway(sandbox.url),
          webhooks: { merchantToken: 'shop-secret', inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } },
          admin: { encryption: { keys: { k1: randomBytes(32) } }, settingsCacheTtlMs: 0 },
          notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
          orderPort: RecordingOrderPort,
        }),
      ],
      { listen: true },
    );
    app = host.app;
    url = host.url;
    // The store owner sets the public webhook URL in the admin settings; the checkout sends it as payment.webhook.
    await app
      .get(InvoicePaymentsSettingsService)
      .update({ publicWebhookUrl: `${url}/webhooks/invoice-payments` });
    provider = app.get(InvoicePaymentProvider);
    port = app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT);
  });
  afterAll(async () => {
    await host.close();
    await sandbox.close();
    await db.destroy();
  });

  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const settle = async () => {
    await sandbox.controls.waitForDeliveries();
    await app.get(WebhookInboxProcessor).drain();
    await app.get(StatusChangeDispatcher).drain();
  };
  const deliveriesOf = (gatewayId: string) => sandbox.deliveries().filter((d) => d.invoiceId === gatewayId);
  /** A sandbox delivery handed to the provider as Medusa's webhook route does. */
  const asMedusaPayload = (d: DeliveryLogEntry) => ({
    data: d.body as unknown as Record<string, unknown>,
    rawData: JSON.stringify(d.body),
    headers: { ...d.headers, Webhook: (d.headers.Webhook as string[]).join(', ') },
  });

  it('moves a checked-out order from awaiting to paid through real deliveries', async () => {
    const order = makeOrder();
    const session = await provider.initiatePayment(checkout(order, 'pix'));
    const rec = await record(session.data.invoiceRecordId);
    await sandbox.controls.pay(rec.gatewayId!);
    await settle();
    await waitFor(async () => (await record(rec.id)).statusCode === 5);
    await settle();
    const told = port.changes.filter((c) => c.invoiceRecordId === rec.id);
    expect(told.map((c) => c.current.code)).toEqual([1, 5]);
    expect(told[1]).toMatchObject({
      orderId: order.id,
      source: 'webhook',
      current: { orderPaymentStatus: 'captured' },
    });
    const inbox = await db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: rec.gatewayId! });
    expect(inbox.map((e) => e.state).sort()).toEqual(['processed', 'processed']);

    // getWebhookActionAndData over the same real deliveries: each is confirmed with the service, which says paid
    // now, so even the late "created" delivery answers with the current truth.
    const [created, paid] = deliveriesOf(rec.gatewayId!);
    expect(created.statusCode).toBe(1);
    expect(await provider.getWebhookActionAndData(asMedusaPayload(created))).toEqual({
      action: 'captured',
      data: { session_id: rec.id, amount: order.total },
    });
    expect(await provider.getWebhookActionAndData(asMedusaPayload(paid))).toEqual({
      action: 'captured',
      data: { session_id: rec.id, amount: order.total },
    });
  });

  it.each([
    ['canceled', 6, 'canceled'],
    ['overdue', 15, 'requires_more'],
    ['unknown-code', 13, 'not_supported'],
  ])('gives Medusa the action of a real %s delivery', async (_label, code, action) => {
    const session = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
    const rec = await record(session.data.invoiceRecordId);
    if (code === 6) await provider.cancelPayment({ data: { invoiceRecordId: rec.id } });
    else if (code === 15) await sandbox.controls.overdue(rec.gatewayId!);
    else await sandbox.controls.setStatus(rec.gatewayId!, code);
    await settle();
    const delivery = deliveriesOf(rec.gatewayId!).find((d) => d.statusCode === code)!;
    expect(delivery).toBeDefined();
    const result = await provider.getWebhookActionAndData(asMedusaPayload(delivery));
    expect(result.action).toBe(action);
    if (action !== 'not_supported') expect(result.data?.session_id).toBe(rec.id);
  });

  it('gives Medusa "failed" for a real denied card delivery', async () => {
    const card = sandbox.controls.createCardToken({
      number: '4000000000000002',
      holder: 'MARIA SILVA',
      expiry: '12/30',
    });
    const session = await provider.initiatePayment(checkout(makeOrder(), 'card', card));
    const rec = await record(session.data.invoiceRecordId);
    await sandbox.controls.pay(rec.gatewayId!, { approved: false });
    await settle();
    const denied = deliveriesOf(rec.gatewayId!).find((d) => d.statusCode === 12)!;
    expect((await provider.getWebhookActionAndData(asMedusaPayload(denied))).action).toBe('failed');
    await waitFor(async () => (await record(rec.id)).statusCode === 12);
  });

  it("never answers a second invoice under a linked session's referrer as that session's capture", async () => {
    const order = makeOrder();
    const session = await provider.initiatePayment(checkout(order, 'pix'));
    const rec = await record(session.data.invoiceRecordId);
    // Another invoice under the same referrer, payment id and amount (a second request that landed): the session's
    // record holds its own, unpaid invoice.
    const second = await app.get(GatewayClient).createInvoice({
      client: { name: 'Maria Silva', document: '52998224725' },
      payment: {
        method: 'pix',
        physical: false,
        id: rec.orderId,
        referrer: rec.referrer,
        webhook: `${url}/webhooks/invoice-payments`,
        products: [
          { id: 'p1', title: 'Mug', quantity: 1, discountCents: 0, unitAmountCents: rec.amountCents },
        ],
      },
    });
    expect(second.id).not.toBe(rec.gatewayId);
    await sandbox.controls.pay(second.id);
    await settle();
    const paid = deliveriesOf(second.id).find((d) => d.statusCode === 5)!;
    expect(paid).toBeDefined();
    expect(await provider.getWebhookActionAndData(asMedusaPayload(paid))).toEqual({
      action: 'not_supported',
    });
    expect((await record(rec.id)).statusCode).toBe(1);
    // Handled by the checkout (paid: alerted to refund), its deliveries are closed, not left waiting for a record.
    const inbox = await db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: second.id });
    expect(inbox.length).toBeGreaterThan(0);
    expect(inbox.map((e) => [e.state, e.outcome])).toEqual(
      inbox.map(() => [
        'ignored',
        expect.stringContaining(`invoice ${second.id} has the referrer of invoice`),
      ]),
    );
  });

  it('reads the merchant token from the admin settings at runtime', async () => {
    const hook = sandbox.controls.registerWebhook({ url: `${url}/nowhere`, merchant_token: 'shop-secret' });
    const send = (merchant: string) =>
      postDelivery(
        url,
        '/webhooks/invoice-payments',
        { event: 'invoice.update', test: true, invoice: null },
        [hook.id, tokenLine(merchant, hook.token)],
      );
    // Past the token check, a test delivery is acknowledged (a wrong merchant part stops at 401).
    const passed = async (merchant: string) => {
      const res = await send(merchant);
      return [res.status, res.body.ignored];
    };
    expect(await passed('shop-secret')).toEqual([200, 'test_delivery']); // the option is the settings' default
    expect((await send('wrong')).status).toBe(401);
    await app.get(InvoicePaymentsSettingsService).update({ webhookToken: 'rotated-secret' });
    expect((await send('shop-secret')).status).toBe(401);
    expect(await passed('rotated-secret')).toEqual([200, 'test_delivery']);
    await app.get(InvoicePaymentsSettingsService).update({ webhookToken: null });
    expect(await passed('shop-secret')).toEqual([200, 'test_delivery']);
  });
});
