import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from './support/chromium';
import { PageLog } from './support/page-log';
import { axeFindings, componentScript, shot } from './support/storefront';

describe('scratch', () => {
  let browser: Browser;
  let page: Page;
  const log = new PageLog();
  beforeAll(async () => {
    browser = await launchChromium();
    page = log.watch(await browser.context.newPage());
  });
  afterAll(() => browser.close());
  it('renders views', async () => {
    const base = 'http://127.0.0.1:9/';
    await page.route(`${base}**`, (route) =>
      route.request().url().endsWith('.js')
        ? route.fulfill({ contentType: 'text/javascript', body: '' })
        : route.fulfill({
            contentType: 'text/html',
            body: '<!doctype html><html lang="pt-BR"><head><title>t</title></head><body><main><invoice-payment></invoice-payment></main></body></html>',
          }),
    );
    await page.goto(`${base}p.html`);
    await page.addScriptTag({ content: await componentScript(), type: 'module' });
    const views: Record<string, object> = {
      pix: {
        method: 'pix',
        state: 'waiting',
        amount: '64.90',
        currency: 'BRL',
        invoiceNumber: '1',
        pix: {
          payload:
            '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
          image: null,
          expiresAt: new Date(Date.now() + 1800_000).toISOString(),
        },
        billet: null,
        card: null,
        renewable: true,
        orderUrl: 'http://x/o',
      },
      billet: {
        method: 'billet',
        state: 'waiting',
        amount: '64.90',
        currency: 'BRL',
        invoiceNumber: '1',
        pix: null,
        billet: {
          line: '23790.12345 60000.000003 00000.000000 1 99990000006490',
          barcode: '23791999900000064901234560000000000000000000',
          url: 'http://x/slip',
          dueAt: '2026-12-02',
        },
        card: null,
        renewable: false,
        orderUrl: null,
      },
      expired: {
        method: 'pix',
        state: 'expired',
        amount: '64.90',
        currency: 'BRL',
        invoiceNumber: '1',
        pix: { payload: 'x', image: null, expiresAt: null },
        billet: null,
        card: null,
        renewable: true,
        orderUrl: null,
      },
      paid: {
        method: 'card',
        state: 'paid',
        amount: '64.90',
        currency: 'BRL',
        invoiceNumber: '1',
        pix: null,
        billet: null,
        card: { brand: 'visa', last4: '1111', installments: 3 },
        renewable: false,
        orderUrl: 'http://x/o',
      },
    };
    for (const [name, view] of Object.entries(views)) {
      for (const width of [390, 320]) {
        await page.setViewportSize({ width, height: 800 });
        await page.evaluate((v) => {
          const el = document.querySelector('invoice-payment') as HTMLElement & { source: unknown };
          el.source = { load: async () => v, renew: async () => v };
        }, view);
        await page.locator('invoice-payment [part~=status]').waitFor();
        await page.waitForTimeout(200);
        await shot(page, `scratch-${name}-${width}`);
      }
      console.log(name, JSON.stringify(await axeFindings(page)));
    }
    await page.evaluate(() => {
      const el = document.querySelector('invoice-payment') as HTMLElement & { source: unknown; pay: unknown };
      el.source = null;
      el.setAttribute('method', 'card');
      el.setAttribute('amount', '64.90');
      el.setAttribute('max-installments', '6');
      el.setAttribute('tokenizer-src', 'http://127.0.0.1:9/card.js');
      el.pay = async () => ({});
    });
    await shot(page, 'scratch-card-320');
    console.log('card', JSON.stringify(await axeFindings(page)));
    console.log(log.errors);
  });
});
