import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import { chromium, type Browser, type Page } from 'playwright-core';
import { checkout, startStore, waitFor, type Store } from './store';

jest.setTimeout(180_000);

const CPF = '529.982.247-25';
const SHOTS = join(__dirname, '..', '..', '..', 'test-results', 'vendure-dashboard');

/**
 * Vendure's dashboard, built by `vite build` with the plugin's extension (this package's `dashboard` entry, from the
 * packed tarball) and served by DashboardPlugin, signed in as the superadmin in Chromium: the order page's invoice
 * block for an order paid by PIX and one paid by card and partly refunded, in English at 1280 px and in Brazilian
 * Portuguese at 390 px (the dashboard's own display-language setting).
 */
describe('Vendure dashboard: the order page block', () => {
  let sandbox: SandboxServer;
  let store: Store;
  let browser: Browser;
  let pix: Awaited<ReturnType<typeof checkout>>;
  let card: Awaited<ReturnType<typeof checkout>>;

  const orderState = async (id: string) =>
    (await store.admin.query(parse(`query ($id: ID!) { order(id: $id) { state } }`), { id })).order.state;

  async function paid(id: string) {
    await waitFor(async () => (await orderState(id)) === 'PaymentSettled', 20_000, `order ${id} paid`);
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    sandbox = await startSandbox({ webhookRetry: { attempts: 3, baseDelayMs: 50, timeoutMs: 5000 } });
    store = await startStore(sandbox);
    pix = await checkout(store, 'pix@example.com', { method: 'pix', document: CPF });
    await sandbox.controls.pay(pix.invoiceId);
    await paid(pix.orderId);
    const token = sandbox.controls.createCardToken({
      number: TEST_CARDS.approved,
      holder: 'MARIA SILVA',
      expiry: '12/30',
    });
    card = await checkout(store, 'card@example.com', {
      method: 'card',
      document: CPF,
      card: { token: token.token, expiry: '12/30', holderName: 'MARIA SILVA' },
    });
    await paid(card.orderId);
    const { order } = await store.admin.query(
      parse(`query ($id: ID!) { order(id: $id) { payments { id } } }`),
      {
        id: card.orderId,
      },
    );
    const { refundOrder } = await store.admin.query(
      parse(`mutation ($input: RefundOrderInput!) {
        refundOrder(input: $input) { ... on Refund { state } ... on ErrorResult { message } }
      }`),
      {
        input: {
          paymentId: order.payments[0].id,
          amount: 3000,
          lines: [],
          shipping: 0,
          adjustment: 0,
          reason: 'x',
        },
      },
    );
    expect(refundOrder).toEqual({ state: 'Settled' });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
    await sandbox?.close();
  });

  /** The superadmin's display language, where the dashboard keeps it (its settings store, per user). */
  async function setLanguage(displayLanguage: string) {
    const { setSettingsStoreValue } = await store.admin.query(
      parse(
        `mutation ($input: SettingsStoreInput!) { setSettingsStoreValue(input: $input) { result error } }`,
      ),
      { input: { key: 'vendure.dashboard.userSettings', value: { displayLanguage, contentLanguage: 'en' } } },
    );
    expect(setSettingsStoreValue).toEqual({ result: true, error: null });
  }

  async function signedIn(width: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${store.url}/dashboard/`);
    await page.fill('#field-username', 'superadmin');
    await page.fill('#field-password', 'superadmin');
    await page.click('button[type=submit]');
    await page.waitForURL((url) => !url.pathname.includes('login'), { timeout: 30_000 });
    return page;
  }

  async function orderBlock(page: Page, orderId: string, shot: string) {
    await page.goto(`${store.url}/dashboard/orders/${orderId}`);
    const block = page.getByTestId('invoice-payments-block');
    await block.getByTestId('invoice-payments-status').waitFor({ timeout: 30_000 });
    await block.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
    await block.screenshot({ path: join(SHOTS, `${shot}-block.png`) });
    return block;
  }

  const text = async (page: Page, id: string) =>
    (
      await page.getByTestId('invoice-payments-block').getByTestId(`invoice-payments-${id}`).innerText()
    ).trim();

  it('English at 1280 px: the PIX order paid, the card order partly refunded', async () => {
    await setLanguage('en');
    const page = await signedIn(1280);
    const pixBlock = await orderBlock(page, pix.orderId, 'order-pix-en-1280');
    expect(await text(page, 'method')).toBe('PIX');
    expect(await text(page, 'status')).toBe('Paid');
    expect(await pixBlock.getByTestId('invoice-payments-status').getAttribute('data-tone')).toBe('paid');
    expect(await text(page, 'number')).toContain(pix.invoiceId);
    expect(await text(page, 'pix-code')).toContain(pix.pixPayload);
    expect(await text(page, 'amount')).toContain('134.80');
    expect(await pixBlock.getByTestId('invoice-payments-due-date').count()).toBe(0);
    expect(await pixBlock.getByTestId('invoice-payments-pix-qr').isVisible()).toBe(true);

    await orderBlock(page, card.orderId, 'order-card-en-1280');
    expect(await text(page, 'method')).toBe('Credit card');
    expect(await text(page, 'status')).toBe('Partially refunded');
    expect(await text(page, 'number')).toContain(card.invoiceId);
    expect(await text(page, 'card')).toContain(`${card.card!.brand} •••• ${TEST_CARDS.approved.slice(-4)}`);
    expect(await text(page, 'refunds')).toMatch(/30\.00\s*Refunded/);
    expect(await text(page, 'refundable')).toContain('104.80');
    await page.close();
  });

  it('Portuguese (Brazil) at 390 px: the same orders in the admin language', async () => {
    await setLanguage('pt_BR');
    const page = await signedIn(390);
    await orderBlock(page, pix.orderId, 'order-pix-pt-390');
    expect(await text(page, 'status')).toBe('Pago');
    expect(await text(page, 'number')).toMatch(new RegExp(`Número da fatura\\s*${pix.invoiceId}`));
    expect(await text(page, 'pix-code')).toContain(pix.pixPayload);
    expect(await text(page, 'amount')).toMatch(/Valor\s*R\$\s*134,80/);

    await orderBlock(page, card.orderId, 'order-card-pt-390');
    expect(await text(page, 'method')).toBe('Cartão de crédito');
    expect(await text(page, 'status')).toBe('Estornado parcialmente');
    expect(await text(page, 'card')).toContain(`•••• ${TEST_CARDS.approved.slice(-4)}`);
    expect(await text(page, 'refunds')).toMatch(/R\$\s*30,00\s*Estornado/);
    expect(await text(page, 'refundable')).toMatch(/Ainda estornável\s*R\$\s*104,80/);
    // Nothing of the block wider than the phone's screen.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.close();
  });
});
