import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import { freePort, MedusaApp, until } from './medusa-app';
import { MedusaStore } from './store';

/*
 * The package as a Medusa store installs it: a real `medusa build` + `medusa start` app whose medusa-config.ts has
 * only the plugin entry and the provider entry (no file of the package copied), on a fresh PostgreSQL database, with
 * the package's sandbox as the payment service. The owner's screens in Medusa's admin: medusa-admin.spec.ts.
 */
let sandbox: SandboxServer;
let app: MedusaApp;
let store: MedusaStore;

beforeAll(async () => {
  sandbox = await startSandbox({ webhookRetry: { attempts: 2, baseDelayMs: 50 } });
  app = new MedusaApp(await freePort(), sandbox.url);
  await app.prepare();
  await app.start();
  store = new MedusaStore(app.url);
  await store.setUp();
}, 1_800_000);

afterAll(async () => {
  await app?.stop();
  await app?.dropDatabase();
  await sandbox?.close();
}, 60_000);

async function paymentStatus(orderId: string): Promise<string> {
  return (await store.order(orderId)).payment_status;
}

async function invoicesOf(orderId: string) {
  return (await store.call('GET', `/admin/invoice-payments/orders/${orderId}`)).invoices;
}

it('PIX paid → the webhook reaches Medusa → the payment is captured; shipped → the tracking code is at the service', async () => {
  const { order, session } = await store.checkout({ method: 'pix' });
  expect(session.data.pix.payload).toBeTruthy();
  expect(await paymentStatus(order.id)).not.toBe('captured');
  await sandbox.controls.pay(session.data.gatewayId);
  await until(async () => (await paymentStatus(order.id)) === 'captured', 60_000, 'PIX captured');

  // Shipped from Medusa's admin: the plugin's subscriber queues the label's code for the paid invoice.
  const full = await store.order(order.id);
  const items = full.items.map((i: { id: string }) => ({ id: i.id, quantity: 1 }));
  const fulfilled = await store.call('POST', `/admin/orders/${order.id}/fulfillments?fields=*fulfillments`, {
    items,
    location_id: store.locationId,
  });
  const fulfillmentId = fulfilled.order.fulfillments[0].id;
  await store.call('POST', `/admin/orders/${order.id}/fulfillments/${fulfillmentId}/shipments`, {
    items,
    labels: [
      {
        tracking_number: 'BR123456789BR',
        tracking_url: 'https://rastreio.example/BR123456789BR',
        label_url: 'https://rastreio.example/l',
      },
    ],
  });
  await until(
    () => sandbox.controls.getInvoice(session.data.gatewayId)?.tracking?.code === 'BR123456789BR',
    60_000,
    'tracking code at the service',
  );
  const [invoice] = await invoicesOf(order.id);
  expect(invoice).toMatchObject({ method: 'pix', statusCode: 5, paidCents: 13480 });
  await until(
    async () => (await invoicesOf(order.id))[0].tracking[0]?.status === 'sent',
    30_000,
    'tracking sent',
  );
}, 240_000);

it('PIX paid while Medusa is down → captured after the restart, with default settings', async () => {
  const { order, session } = await store.checkout({ method: 'pix' });
  await app.stop();
  await sandbox.controls.pay(session.data.gatewayId);
  await sandbox.controls.waitForDeliveries(10_000);
  await app.start();
  await until(async () => (await paymentStatus(order.id)) === 'captured', 240_000, 'captured after restart');
}, 420_000);

it('bank slip: the line is given, paid → captured', async () => {
  const { order, session } = await store.checkout({ method: 'billet' });
  expect(session.data.billet.line).toBeTruthy();
  await sandbox.controls.pay(session.data.gatewayId);
  await until(async () => (await paymentStatus(order.id)) === 'captured', 60_000, 'bank slip captured');
}, 120_000);

it('card: paid at checkout, refunded in part from Medusa → refunded at the service', async () => {
  const token = sandbox.controls.createCardToken({
    number: TEST_CARDS.approved,
    holder: 'ANA SOUZA',
    expiry: '12/40',
  });
  const { order, session } = await store.checkout({
    method: 'card',
    card: { token: token.token, expiry: '12/40', holder_name: 'ANA SOUZA' },
    installments: 1,
  });
  await until(async () => (await paymentStatus(order.id)) === 'captured', 60_000, 'card captured');
  const payment = (await store.order(order.id)).payment_collections[0].payments[0];
  await store.call('POST', `/admin/payments/${payment.id}/refund`, { amount: 20 });
  expect(sandbox.controls.getInvoice(session.data.gatewayId)!.refunds.map((r) => r.amountCents)).toEqual([
    2000,
  ]);
  await until(
    async () => (await paymentStatus(order.id)) === 'partially_refunded',
    30_000,
    'partially refunded',
  );
  const [invoice] = await invoicesOf(order.id);
  expect(invoice).toMatchObject({ method: 'card', refundableCents: 11480 });
  expect(invoice.refunds.map((r: { amountCents: number }) => r.amountCents)).toEqual([2000]);
}, 120_000);
