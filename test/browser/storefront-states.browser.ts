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
 * A PIX canceled at the service, and a store's own look, on a plain HTML page (its own origin, which passes the
 * status route on to the demo store).
 */
describe('storefront: the canceled state, and the host page themes the component', () => {
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
    await page.setViewportSize({ width: 390, height: 844 });
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

  /** A PIX order through the store's API, shown on a plain page whose `<style>` is `style`. */
  async function pixPage(style = ''): Promise<{ invoiceNumber: string }> {
    const order = await client.createOrder({
      items: [{ product_id: 'prod_cafe', quantity: 1 }],
      customer: CUSTOMER,
      shipping_address: ADDRESS,
    });
    const { payment } = await client.pay(order.id, { method: 'pix' });
    const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Checkout</title>
      <style>${style}</style><script type="module" src="component.js"></script></head>
      <body><main><h1>Checkout</h1><invoice-payment src="${payment.status_url as string}"></invoice-payment></main></body></html>`;
    host = await startPageServer(demo.storeUrl, html, await componentScript());
    await page.goto(host.url);
    await statusReads(page, 'Aguardando pagamento');
    return { invoiceNumber: payment.invoice_number as string };
  }

  it('a PIX canceled at the service shows the canceled state in its words, announced through aria-live', async () => {
    const { invoiceNumber } = await pixPage();
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
    await pixPage(THEME);
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
