import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import { ADMIN, freePort, MedusaApp, RESULTS, until } from './medusa-app';
import { MedusaStore } from './store';

/*
 * The package as a Medusa store installs it: a real `medusa build` + `medusa start` app whose medusa-config.ts has
 * only the plugin entry and the provider entry (no file of the package copied), on a fresh PostgreSQL database, with
 * the package's sandbox as the payment service. Then Medusa's admin in Chromium shows the invoice on the order page.
 */
let sandbox: SandboxServer;
let app: MedusaApp;
let store: MedusaStore;
const orders: { pix?: string; card?: string } = {};

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
  orders.pix = order.id;
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
  orders.card = order.id;
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

describe("Medusa's admin, signed in, in Chromium", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    // Medusa's session cookie is Secure in production: the header a TLS terminator adds (Medusa trusts one proxy).
    const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-Proto': 'https' } });
    page = await context.newPage();
    await page.goto(`${app.url}/app/login`);
    await page.fill('input[name="email"]', ADMIN.email);
    await page.fill('input[name="password"]', ADMIN.password);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/app\/orders/, { timeout: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function widget(orderId: string, shot: string) {
    await page.goto(`${app.url}/app/orders/${orderId}`);
    const found = page.getByTestId('invoice-payments-widget');
    await found.getByTestId('invoice-payments-invoice').first().waitFor({ timeout: 60_000 });
    await found.screenshot({ path: join(RESULTS, shot) });
    return found;
  }

  it('a paid PIX order shows the method, status, PIX code and QR image, amount paid and the tracking code', async () => {
    const found = await widget(orders.pix!, 'medusa-widget-pix.png');
    await expect(found.getByTestId('invoice-payments-method').textContent()).resolves.toBe('PIX');
    await expect(found.getByTestId('invoice-payments-status').textContent()).resolves.toMatch(/pa/i);
    await expect(found.getByTestId('invoice-payments-pix-code').textContent()).resolves.toMatch(/0002/);
    expect(await found.getByTestId('invoice-payments-pix-qr').getAttribute('src')).toMatch(/^http/);
    await expect(found.getByTestId('invoice-payments-paid').textContent()).resolves.toContain('R$ 134.80');
    await expect(found.getByTestId('invoice-payments-tracking').textContent()).resolves.toContain(
      'BR123456789BR',
    );
    await expect(found.getByTestId('invoice-payments-tracking').textContent()).resolves.toContain(
      'at the service',
    );
  }, 120_000);

  it('a refunded card order shows, in Portuguese, the refund made and what is still refundable', async () => {
    // As the admin's language setting keeps it (i18next: the `lng` cookie, then localStorage).
    await page.context().addCookies([{ name: 'lng', value: 'ptBR', url: app.url }]);
    await page.evaluate(() => localStorage.setItem('lng', 'ptBR'));
    const found = await widget(orders.card!, 'medusa-widget-card-refunded.png');
    await expect(found.getByTestId('invoice-payments-method').textContent()).resolves.toBe('Cartão');
    await expect(found.getByTestId('invoice-payments-refunds').textContent()).resolves.toContain('R$ 20,00');
    await expect(found.getByTestId('invoice-payments-refundable').textContent()).resolves.toContain(
      'R$ 114,80',
    );
    await expect(found.textContent()).resolves.toContain('Pagamento da fatura');
  }, 120_000);

  it("the module's settings are in Medusa's settings, secrets masked", async () => {
    await page.goto(`${app.url}/app/settings/invoice-payments`);
    const settings = page.getByTestId('invoice-payments-settings');
    await settings.getByText('baseUrl').waitFor({ timeout: 60_000 });
    await settings.screenshot({ path: join(RESULTS, 'medusa-settings.png') });
    await expect(settings.textContent()).resolves.toContain(sandbox.url);
    await expect(settings.textContent()).resolves.not.toContain('sandbox-token');
  }, 120_000);
});
