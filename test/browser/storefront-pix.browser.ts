import type { Page } from 'playwright-core';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import { openDemoDatabase, startQuietDemo, testConfig } from '../demo/support';
import type { TestDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { launchChromium, type Browser } from './support/chromium';
import { PageLog } from './support/page-log';
import { axeFindings, component, shot, statusReads } from './support/storefront';

/**
 * A newcomer on the demo's storefront page (`/shop`, plain HTML with the store's real CSP): places an order, pays by
 * PIX with `<invoice-payment>`, in Chromium, keyboard only where a shopper would use the keyboard.
 */
describe('storefront: PIX on the demo shop page', () => {
  let db: TestDatabase;
  let config: DemoConfig;
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  const log = new PageLog();

  beforeAll(async () => {
    db = await openDemoDatabase('sqlite');
    config = { ...testConfig(db), once: false };
    demo = await startQuietDemo(config);
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.storeUrl });
    page = log.watch(await browser.context.newPage());
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await db?.destroy();
  });
  afterEach(() => expect(log.unexpected()).toEqual([]));

  it('places an order by keyboard and shows the PIX: QR image, code, amount, countdown', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const response = await page.goto(`${demo.storeUrl}/shop`);
    expect(response?.headers()['content-security-policy']).toContain("style-src 'self'");
    await page.locator('#products input').first().waitFor();
    // Keyboard only: the form is filled in for a newcomer; from the payment choice, Tab reaches the submit button.
    await page.locator('input[name=method][value=pix]').focus();
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Fazer pedido');
    await page.keyboard.press('Enter');
    await statusReads(page, 'Aguardando pagamento');
    const el = component(page);
    await el.locator('[part~=qr]').waitFor();
    expect(
      await el
        .locator('[part~=qr]')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    expect(await el.locator('[part~=amount]').textContent()).toMatch(/^R\$\s?64,90$/);
    expect(await el.locator('[part~=code]').inputValue()).toMatch(/^000201/);
    await expect(el.locator('[part~=countdown]').textContent()).resolves.toMatch(
      /^(Expira em \d+:\d\d|Válido até \d\d\/\d\d\/\d{4},? \d\d:\d\d)/,
    );
    await shot(page, 'pix-390');
    await page.setViewportSize({ width: 320, height: 700 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    await shot(page, 'pix-320');
    expect(await axeFindings(page)).toEqual([]);
  });

  it('copies the code to the clipboard by keyboard and announces "Copiado"', async () => {
    const el = component(page);
    await el.locator('[part~=code]').focus();
    await page.keyboard.press('Tab');
    await expect(el.locator('[part~=copy-button]').evaluate((b) => b.matches(':focus'))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await el.locator('[part~=message]', { hasText: 'Copiado' }).waitFor();
    expect(await el.locator('[part~=message]').getAttribute('aria-live')).toBe('polite');
    const code = await el.locator('[part~=code]').inputValue();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(code);
  });

  it("flips to paid by itself within 3 s once the shopper pays in the sandbox's bank app", async () => {
    const link = page.locator('#bank-app-link');
    await link.waitFor();
    const bank = await browser.context.newPage();
    await bank.goto((await link.getAttribute('href')) as string);
    await bank.getByRole('button', { name: 'Simulate PIX payment' }).click();
    await bank.waitForFunction("!/^1 /.test(document.getElementById('status').textContent)");
    await bank.close();
    // From the moment the store knows (the order is captured), the component has 3 s.
    const orderId = (await page.locator('#payment').getAttribute('data-order-id')) as string;
    await orderCaptured(demo.storeUrl, orderId);
    await statusReads(page, 'Pagamento confirmado', 3000);
    const live = component(page).locator('[role=status]');
    expect(await live.textContent()).toBe('Pagamento confirmado');
    expect(await component(page).locator('[part~=order-link]').getAttribute('href')).toBe(
      `${demo.storeUrl}/store/orders/${orderId}`,
    );
    await shot(page, 'pix-paid-320');
    expect(await axeFindings(page)).toEqual([]);
  });
});

/** Order payment statuses of a paid order (the module's status table: 4 authorized, 5 captured). */
const PAID = ['authorized', 'captured'];

/** Reads the order until it is paid (at most 20 s). */
async function orderCaptured(storeUrl: string, orderId: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(`${storeUrl}/store/orders/${orderId}`);
      return res.ok && PAID.includes(((await res.json()) as { payment_status: string }).payment_status);
    },
    20_000,
    `order ${orderId} paid`,
  );
}
