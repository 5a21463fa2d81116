import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { checkout, startStore, waitFor, type Store } from './store';

jest.setTimeout(240_000);

const CPF = '529.982.247-25';
const SHOTS = join(__dirname, '..', '..', '..', 'test-results', 'vendure-dashboard');
const LAST4 = TEST_CARDS.approved.slice(-4);

/** What the block says in each of the dashboard's display languages, and how it writes money (R$ 134,80). */
const WORDS = {
  en: {
    locale: 'en-US',
    money: (n: string) => new RegExp(`R\\$\\s*${n.replace('.', '\\.')}`),
    paid: 'Paid',
    awaiting: 'Awaiting payment',
    canceled: 'Canceled',
    partly: 'Partially refunded',
    pix: 'PIX',
    slip: 'Bank slip',
    card: 'Credit card',
    number: 'Invoice number',
    due: 'Due date',
    amount: 'Amount',
    refunded: 'Refunded',
    refundable: 'Still refundable',
    openSlip: 'Open the bank slip',
  },
  pt_BR: {
    locale: 'pt-BR',
    money: (n: string) => new RegExp(`R\\$\\s*${n.replace('.', ',')}`),
    paid: 'Pago',
    awaiting: 'Aguardando pagamento',
    canceled: 'Cancelado',
    partly: 'Estornado parcialmente',
    pix: 'PIX',
    slip: 'Boleto',
    card: 'Cartão de crédito',
    number: 'Número da fatura',
    due: 'Vencimento',
    amount: 'Valor',
    refunded: 'Estornado',
    refundable: 'Ainda estornável',
    openSlip: 'Abrir o boleto',
  },
};
type Language = keyof typeof WORDS;

/**
 * Vendure's dashboard, built by `vite build` with the plugin's extension (this package's `dashboard` entry, from the
 * packed tarball) and served by DashboardPlugin, signed in as the superadmin in Chromium: the order page's invoice
 * block for an order paid by PIX, one paid by card and partly refunded, one whose bank slip waits to be paid (its due
 * date, the pending badge) and one whose PIX the service canceled; in English and Brazilian Portuguese (the
 * dashboard's own display-language setting), each at 1280 px and at 390 px.
 */
describe('Vendure dashboard: the order page block', () => {
  let sandbox: SandboxServer;
  let store: Store;
  let browser: Browser;
  let pix: Awaited<ReturnType<typeof checkout>>;
  let card: Awaited<ReturnType<typeof checkout>>;
  let slip: Awaited<ReturnType<typeof checkout>>;
  let canceled: Awaited<ReturnType<typeof checkout>>;
  /** The slip's due day at the service (`YYYY-MM-DD`). */
  let slipDue: string;

  const orderState = async (id: string) =>
    (await store.admin.query(parse(`query ($id: ID!) { order(id: $id) { state } }`), { id })).order.state;
  const invoiceStatus = async (orderId: string) =>
    (
      await store.admin.query(
        parse(`query ($id: ID!) { invoicePaymentsForOrder(orderId: $id) { statusCode } }`),
        { id: orderId },
      )
    ).invoicePaymentsForOrder[0]?.statusCode;

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
      { id: card.orderId },
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
    // A bank slip left to be paid: the order waits on it (awaiting payment, by its due date).
    slip = await checkout(store, 'slip@example.com', { method: 'billet', document: CPF });
    expect(slip.billetLine).toEqual(expect.any(String));
    slipDue = sandbox.controls.getInvoice(slip.invoiceId)!.dueDay;
    expect(await invoiceStatus(slip.orderId)).toBe(1);
    // A PIX the service canceled (its webhook tells the store).
    canceled = await checkout(store, 'canceled@example.com', { method: 'pix', document: CPF });
    await sandbox.controls.setStatus(canceled.invoiceId, 6);
    await waitFor(async () => (await invoiceStatus(canceled.orderId)) === 6, 20_000, 'PIX canceled');
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

  const text = async (block: Locator, id: string) =>
    (await block.getByTestId(`invoice-payments-${id}`).innerText()).trim();

  /** The status badge: its words, the module's tone and its colour beside the dashboard's own (`--warning`...). */
  async function badge(block: Locator) {
    const status = block.getByTestId('invoice-payments-status');
    const colour = await status.evaluate((el) => {
      const probe = document.createElement('span');
      el.parentElement!.append(probe);
      const of = (name: string) => {
        probe.style.color = `var(--${name})`;
        return getComputedStyle(probe).color;
      };
      const theme = { success: of('success'), warning: of('warning'), destructive: of('destructive') };
      probe.remove();
      const own = getComputedStyle(el).color;
      return Object.entries(theme).find(([, value]) => value === own)?.[0] ?? own;
    });
    return { words: (await status.innerText()).trim(), tone: await status.getAttribute('data-tone'), colour };
  }

  it.each([
    ['en', 1280],
    ['en', 390],
    ['pt_BR', 1280],
    ['pt_BR', 390],
  ] as Array<[Language, number]>)(
    '%s at %i px: paid, partly refunded, awaiting and canceled',
    async (language, width) => {
      const w = WORDS[language];
      const shot = (name: string) => `order-${name}-${language === 'en' ? 'en' : 'pt'}-${width}`;
      await setLanguage(language);
      const page = await signedIn(width);

      const pixBlock = await orderBlock(page, pix.orderId, shot('pix'));
      expect(await text(pixBlock, 'method')).toBe(w.pix);
      expect(await badge(pixBlock)).toEqual({ words: w.paid, tone: 'paid', colour: 'success' });
      expect(await text(pixBlock, 'number')).toMatch(new RegExp(`${w.number}\\s*${pix.invoiceId}`));
      expect(await text(pixBlock, 'amount')).toMatch(
        new RegExp(`${w.amount}\\s*${w.money('134.80').source}`),
      );
      // Paid: no due date, and no code or QR an operator could send a customer to pay again.
      expect(await pixBlock.getByTestId('invoice-payments-due-date').count()).toBe(0);
      expect(await pixBlock.getByTestId('invoice-payments-pix-code').count()).toBe(0);
      expect(await pixBlock.getByTestId('invoice-payments-pix-qr').count()).toBe(0);

      const cardBlock = await orderBlock(page, card.orderId, shot('card'));
      expect(await text(cardBlock, 'method')).toBe(w.card);
      // Partly refunded: still paid, more may go back; orange as the dashboard marks what is not settled.
      expect(await badge(cardBlock)).toEqual({ words: w.partly, tone: 'open', colour: 'warning' });
      expect(await text(cardBlock, 'number')).toContain(card.invoiceId);
      expect(await text(cardBlock, 'card')).toContain(`${card.card!.brand} •••• ${LAST4}`);
      expect(await text(cardBlock, 'refunds')).toMatch(
        new RegExp(`${w.money('30.00').source}\\s*${w.refunded}`),
      );
      expect(await text(cardBlock, 'refundable')).toMatch(
        new RegExp(`${w.refundable}\\s*${w.money('104.80').source}`),
      );

      // The open slip: what it waits on (its due date, as the admin's language writes a day) and the pending badge.
      const slipBlock = await orderBlock(page, slip.orderId, shot('slip-open'));
      expect(await text(slipBlock, 'method')).toBe(w.slip);
      expect(await badge(slipBlock)).toEqual({ words: w.awaiting, tone: 'open', colour: 'warning' });
      const day = new Intl.DateTimeFormat(w.locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(
        new Date(`${slipDue}T12:00:00Z`),
      );
      expect(await text(slipBlock, 'due-date')).toMatch(
        new RegExp(`^${w.due}\\s*${day.replace(/\./g, '\\.')}$`),
      );
      expect(await text(slipBlock, 'billet-line')).toContain(slip.billetLine);
      expect(await slipBlock.getByRole('link', { name: w.openSlip }).isVisible()).toBe(true);
      expect(await text(slipBlock, 'amount')).toMatch(w.money('134.80'));
      // Nothing paid yet: nothing to refund is said.
      expect(await slipBlock.getByTestId('invoice-payments-refundable').count()).toBe(0);

      const canceledBlock = await orderBlock(page, canceled.orderId, shot('pix-canceled'));
      expect(await badge(canceledBlock)).toEqual({ words: w.canceled, tone: 'ended', colour: 'destructive' });
      expect(await canceledBlock.getByTestId('invoice-payments-due-date').count()).toBe(0);
      expect(await canceledBlock.getByTestId('invoice-payments-pix-code').count()).toBe(0);

      // Nothing of the page wider than the window.
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(width);
      await page.close();
    },
  );
});
