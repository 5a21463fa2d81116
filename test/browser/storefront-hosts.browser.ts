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

/** What the host page's own style sheet sets: a custom property and a `::part` rule (defaults differ from both). */
const THEME = `
  invoice-payment { --ip-accent: rgb(106, 27, 154); }
  invoice-payment::part(status) { text-transform: uppercase; letter-spacing: 2px; }
`;

/**
 * The component in the two kinds of host page a store has: plain HTML (any storefront) and React 19 (Medusa's
 * Next.js starter), each served from its own origin that passes the status route on to the demo store.
 */
describe('storefront: the component in plain HTML and in React 19; its canceled state; the page themes it', () => {
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

  /** A PIX shown on a plain page of its own origin whose `<style>` is `style`, waiting for payment. */
  async function plainPage(style = ''): Promise<{ invoiceNumber: string }> {
    const { src, invoiceNumber } = await pixPayment();
    const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Checkout</title>
      <style>${style}</style><script type="module" src="component.js"></script></head>
      <body><main><h1>Checkout</h1><invoice-payment src="${src}"></invoice-payment></main></body></html>`;
    host = await startPageServer(demo.storeUrl, html, await componentScript());
    await page.goto(host.url);
    await statusReads(page, 'Aguardando pagamento');
    return { invoiceNumber };
  }

  it('plain HTML: an element in the markup follows the payment to paid', async () => {
    const { invoiceNumber } = await plainPage();
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

  it('a PIX canceled at the service shows the canceled state in its words, announced through aria-live', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { invoiceNumber } = await plainPage();
    const el = component(page);
    const changed = page.evaluate(
      "new Promise((resolve) => document.addEventListener('statechange', (e) => resolve(e.detail.state)))",
    );
    await demo.sandbox!.controls.setStatus(invoiceNumber, 6); // 6: canceled (docs/gateway-assumptions.md)
    await statusReads(page, 'Pagamento cancelado', 15_000);
    await expect(changed).resolves.toBe('canceled');
    expect(await el.locator('[part~=status]').getAttribute('data-state')).toBe('canceled');
    expect(await el.locator('[part~=note]').textContent()).toBe(
      'Este pagamento foi cancelado. Nada foi cobrado.',
    );
    const live = el.locator('[role=status]');
    expect(await live.getAttribute('aria-live')).toBe('polite');
    expect(await live.textContent()).toBe('Pagamento cancelado');
    // Nothing left to pay with: no code, no QR image.
    expect(await el.locator('[part~=code], [part~=qr]').count()).toBe(0);
    expect(await axeFindings(page)).toEqual([]);

    await page.evaluate("document.querySelector('invoice-payment').setAttribute('lang', 'en')");
    await statusReads(page, 'Payment canceled');
    expect(await el.locator('[part~=note]').textContent()).toBe(
      'This payment was canceled. Nothing was charged.',
    );
  });

  it("takes the page's CSS custom properties and ::part rules", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await plainPage(THEME);
    const el = component(page);
    const style = (part: string, property: string) =>
      el
        .locator(`[part~=${part}]`)
        .evaluate(
          (node, name) => (globalThis as unknown as Computed).getComputedStyle(node).getPropertyValue(name),
          property,
        );
    expect(await style('copy-button', 'background-color')).toBe('rgb(106, 27, 154)');
    expect(await style('status', 'text-transform')).toBe('uppercase');
    expect(await style('status', 'letter-spacing')).toBe('2px');
    expect(await axeFindings(page)).toEqual([]);
  });
});

/** The browser's `getComputedStyle`, for code evaluated in the page (the tests are typed without the DOM). */
interface Computed {
  getComputedStyle(node: unknown): { getPropertyValue(name: string): string };
}
