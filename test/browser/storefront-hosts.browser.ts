import type { Page } from 'playwright-core';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import { StoreClient } from '../../examples/demo-store/store-client';
import { ADDRESS, CUSTOMER, openDemoDatabase, startQuietDemo, testConfig } from '../demo/support';
import type { TestDatabase } from '../support/databases';
import { launchChromium, type Browser } from './support/chromium';
import { PageLog } from './support/page-log';
import {
  axeFindings,
  component,
  componentScript,
  reactPageScript,
  startPageServer,
  type PageServer,
  statusReads,
} from './support/storefront';

/**
 * The component in the two kinds of host page a store has: plain HTML (any storefront) and React 19 (Medusa's
 * Next.js starter), each served from its own origin that passes the status route on to the demo store.
 */
describe('storefront: the component in plain HTML and in React 19', () => {
  let db: TestDatabase;
  let config: DemoConfig;
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  let client: StoreClient;
  let host: PageServer | undefined;
  const log = new PageLog();

  beforeAll(async () => {
    db = await openDemoDatabase('sqlite');
    config = { ...testConfig(db), once: false };
    demo = await startQuietDemo(config);
    client = new StoreClient(demo.storeUrl, demo.sandbox!.url, config.adminKey);
    browser = await launchChromium();
  }, 90_000);
  beforeEach(async () => {
    page = log.watch(await browser.context.newPage());
  });
  afterEach(async () => {
    await page.close();
    await host?.close();
    expect(log.unexpected()).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await db?.destroy();
  });

  /** A PIX order through the store's API; answers its status URL and invoice number. */
  async function pixPayment(): Promise<{ src: string; invoiceNumber: string }> {
    const order = await client.createOrder({
      items: [{ product_id: 'prod_cafe', quantity: 1 }],
      customer: CUSTOMER,
      shipping_address: ADDRESS,
    });
    const { payment } = await client.pay(order.id, { method: 'pix' });
    return { src: payment.status_url as string, invoiceNumber: payment.invoice_number as string };
  }

  it('plain HTML: an element in the markup follows the payment to paid', async () => {
    const { src, invoiceNumber } = await pixPayment();
    const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Checkout</title>
      <script type="module" src="component.js"></script></head>
      <body><main><h1>Checkout</h1><invoice-payment src="${src}"></invoice-payment></main></body></html>`;
    host = await startPageServer(demo.storeUrl, html, await componentScript());
    await page.goto(host.url);
    await statusReads(page, 'Aguardando pagamento');
    expect(await axeFindings(page)).toEqual([]);
    const paid = page.evaluate(
      "new Promise((resolve) => document.addEventListener('paid', (e) => resolve(e.detail.state)))",
    );
    await demo.sandbox!.controls.pay(invoiceNumber);
    await statusReads(page, 'Pagamento confirmado', 15_000);
    await expect(paid).resolves.toBe('paid');
  });

  it('React 19: props become properties, onstatechange hears the element', async () => {
    const { src, invoiceNumber } = await pixPayment();
    const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Checkout</title></head>
      <body data-src="${src}"><div id="root"></div><script type="module" src="react-page.js"></script></body></html>`;
    const requests: Array<string | undefined> = [];
    page.on(
      'request',
      (r) => r.url().includes('/invoice-payments/') && requests.push(r.headers()['x-test-header']),
    );
    host = await startPageServer(demo.storeUrl, html, await reactPageScript());
    await page.goto(host.url);
    await statusReads(page, 'Aguardando pagamento');
    await page.locator('#react-state', { hasText: 'waiting' }).waitFor();
    expect(requests[0]).toBe('react');
    expect(await component(page).getAttribute('src')).toBe(src);
    await demo.sandbox!.controls.pay(invoiceNumber);
    await page.locator('#react-state', { hasText: 'paid' }).waitFor({ timeout: 15_000 });
    await statusReads(page, 'Pagamento confirmado');
    expect(await axeFindings(page)).toEqual([]);
  });
});
