import { join } from 'node:path';
import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from './admin-pages';
import { GuestCheckout } from './guest';
import { freePort, MedusaApp, RESULTS, until } from './medusa-app';
import { startStorefront, type StorefrontServer } from './storefront-page';
import { CPF, MedusaStore, PROVIDER_ID } from './store';

/*
 * A guest pays by PIX in the real Medusa app with `<invoice-payment>`, loaded from the package installed in the app:
 * the checkout through the store API (as the starter storefront), then a page on its own origin showing the cart's
 * payment through the plugin's store route (cross-origin, with the publishable key, allowed by Medusa's STORE_CORS),
 * paid at the sandbox's bank-app page, flipping to paid by itself, and the order captured in Medusa. And a guest's card,
 * typed into the component's form: the number goes only to the service's script (the sandbox's `/js/card.js`), the
 * token to Medusa through the page's `pay` hook, and the order is captured.
 */
let sandbox: SandboxServer;
let app: MedusaApp;
let store: MedusaStore;
let storefront: StorefrontServer;
let browser: Browser;

beforeAll(async () => {
  sandbox = await startSandbox({ webhookRetry: { attempts: 2, baseDelayMs: 50 } });
  storefront = await startStorefront();
  app = new MedusaApp(await freePort(), sandbox.url);
  // As a store sets STORE_CORS: its own origin and the storefront's.
  app.env.STORE_CORS = `${app.url},${storefront.origin}`;
  await app.prepare();
  await app.start();
  store = new MedusaStore(app.url);
  await store.setUp({ guest: true });
  browser = await launchChromium();
}, 1_800_000);

afterAll(async () => {
  await browser?.close();
  await storefront?.close();
  await app?.stop();
  await app?.dropDatabase();
  await sandbox?.close();
}, 60_000);

/**
 * Waits until the component's status line reads `text`, or fails at `timeout` naming what the page reported (a
 * refused CORS preflight shows only there).
 */
async function statusReads(page: Page, text: string, timeout: number, problems: string[]): Promise<void> {
  const status = page.locator('invoice-payment').locator('[part~=status]', { hasText: text });
  await status.waitFor({ timeout }).catch((err: Error) => {
    throw new Error(`${err.message}\nthe page reported:\n${problems.join('\n') || '(nothing)'}`);
  });
}

/** The shopper's bank app: the sandbox's payment page of the invoice, its "pay by PIX" button. */
async function payAtBankApp(invoiceNumber: string): Promise<void> {
  const bank = await browser.newPage();
  try {
    await bank.goto(`${sandbox.url}/_sandbox/invoices/${encodeURIComponent(invoiceNumber)}/page`);
    await bank.getByRole('button', { name: 'Simulate PIX payment' }).click();
    // The page's status line leaves "1 (awaiting)" once the service took the payment.
    await bank.waitForFunction("!/^1 /.test(document.getElementById('status').textContent)", undefined, {
      timeout: 30_000,
    });
  } finally {
    await bank.close();
  }
}

function qrLoaded(component: Locator): Promise<number> {
  return component
    .locator('[part~=qr]')
    .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth);
}

it('a guest pays by PIX with the component: code and waiting, then paid by itself; the order is captured', async () => {
  const { cartId, order, session } = await new GuestCheckout(store).checkout({ method: 'pix' });
  const payload = session.data.pix.payload as string;
  expect(payload).toMatch(/^000201/);

  const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  const toMedusa: Array<{ url: string; key: string | undefined }> = [];
  page.on('request', (r) => {
    if (r.url().startsWith(app.url))
      toMedusa.push({ url: r.url(), key: r.headers()['x-publishable-api-key'] });
  });

  await page.goto(storefront.pageUrl({ medusaUrl: app.url, publishableKey: store.publishableKey, cartId }));
  const component = page.locator('invoice-payment');
  await statusReads(page, 'Aguardando pagamento', 30_000, problems);
  expect(await component.locator('[part~=code]').inputValue()).toBe(payload);
  expect(await component.locator('[part~=amount]').textContent()).toMatch(/^R\$\s?134,80$/);
  await component.locator('[part~=qr]').waitFor();
  await until(async () => (await qrLoaded(component)) > 0, 10_000, 'the QR image loads');
  await page.screenshot({ path: join(RESULTS, 'storefront-pix-waiting-390.png'), fullPage: true });

  // The component read the plugin's store route of this cart, with the key, across origins.
  const route = `${app.url}/store/invoice-payments/carts/${cartId}`;
  expect(toMedusa.length).toBeGreaterThan(0);
  expect(toMedusa.every((r) => r.url === route && r.key === store.publishableKey)).toBe(true);

  await payAtBankApp(session.data.gatewayId as string);
  // The webhook reaches Medusa, the plugin's record says paid, the component's next poll shows it.
  await statusReads(page, 'Pagamento confirmado', 60_000, problems);
  await page.screenshot({ path: join(RESULTS, 'storefront-pix-paid-390.png'), fullPage: true });
  expect(await component.evaluate((el) => (el as unknown as { state: string }).state)).toBe('paid');

  await until(
    async () => (await store.order(order.id)).payment_status === 'captured',
    60_000,
    'the order captured',
  );
  const payments = (await store.order(order.id)).payment_collections[0].payments;
  expect(payments).toHaveLength(1);
  expect(payments[0].captured_at).toBeTruthy();
  expect(problems).toEqual([]);
  await context.close();
}, 300_000);

it('a guest pays by card in the component: the number only to the card script, the token to Medusa; captured', async () => {
  const cartId = await new GuestCheckout(store).cart();
  const { cart } = await store.call('GET', `/store/carts/${cartId}`, undefined, 'store');
  const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  const sent: Array<{ url: string; body: string }> = [];
  page.on('request', (r) => r.method() === 'POST' && sent.push({ url: r.url(), body: r.postData() ?? '' }));

  const card = {
    amount: String(cart.total),
    tokenizerSrc: `${sandbox.url}/js/card.js`,
    document: CPF,
    providerId: PROVIDER_ID,
  };
  await page.goto(
    storefront.pageUrl({ medusaUrl: app.url, publishableKey: store.publishableKey, cartId, card }),
  );
  const component = page.locator('invoice-payment');
  await statusReads(page, 'Cartão de crédito', 30_000, problems);
  await component.locator('#card-holder').fill('MARIA SOUZA');
  await component.locator('#card-number').fill(TEST_CARDS.approved);
  await component.locator('#card-expiry').fill('12/40');
  await component.locator('#card-cvv').fill('123');
  await component.locator('#card-installments').selectOption('2');
  await component.locator('[part~=submit]').click();
  await statusReads(page, 'Pagamento confirmado', 60_000, problems);
  await page.screenshot({ path: join(RESULTS, 'storefront-card-paid-390.png'), fullPage: true });

  // The number went once, to the script's own endpoint at the service; Medusa got the token, never the number.
  const withNumber = sent.filter((r) => r.body.includes(TEST_CARDS.approved));
  expect(withNumber.map((r) => r.url)).toEqual([`${sandbox.url}/card-tokens`]);
  const session = sent.find((r) => r.url.endsWith('/payment-sessions'));
  expect(JSON.parse(session!.body).data.card.token).toMatch(/\S/);
  expect(sent.filter((r) => r.url.startsWith(app.url)).every((r) => !r.body.includes('cvv'))).toBe(true);

  const orderId = await page.evaluate<string>('document.body.dataset.orderId');
  await until(
    async () => (await store.order(orderId)).payment_status === 'captured',
    60_000,
    'the order captured',
  );
  const view = await component.evaluate((el) => (el as unknown as { view: Record<string, unknown> }).view);
  expect(view).toMatchObject({ method: 'card', state: 'paid', card: { installments: 2, last4: '1111' } });
  const invoice = sandbox.controls.getInvoice(view.invoiceNumber as string)!;
  expect(invoice.client).toMatchObject({ name: 'Maria Souza', document: CPF });
  expect(problems).toEqual([]);
  await context.close();
}, 300_000);
