import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../browser/support/chromium';
import { PageLog } from '../browser/support/page-log';
import { axeFindings, component, statusReads } from '../browser/support/storefront';
import { describeEachDatabase } from '../support/databases';
import { cartReadyToPay, CPF, type ShopClient, type ShopEnv, startPayment } from './flows';
import { gqlWith } from './graphql';
import { pageShopClient, startStorefront, type Storefront } from './storefront-page';
import { startVendure, type VendureTestEnv } from './support';

jest.setTimeout(180_000);

/** Where the screenshots go (gitignored). */
const SHOTS = join(__dirname, '..', '..', 'test-results', 'vendure-storefront');

const LOGIN = gqlWith(`
  mutation ($username: String!, $password: String!) {
    login(username: $username, password: $password) {
      ... on CurrentUser { id }
      ... on ErrorResult { errorCode message }
    }
  }
`);

/**
 * The shopper's component in a Vendure storefront: a real Vendure server (Vendure's own test harness) with session
 * cookies (Vendure's default token method; bearer stays on for the suite's admin client), and a storefront page
 * server on another port that passes `/shop-api` to it. The guest checks out by PIX from the page itself, so the
 * session cookie is the page's own; the confirmation page runs docs/storefront.md's adapter over the built component.
 */
describeEachDatabase('the component in a Vendure storefront', (kind) => {
  let env: VendureTestEnv;
  let storefront: Storefront;
  let browser: Browser;
  let page: Page;
  let shop: ShopClient;
  const log = new PageLog();

  beforeAll(async () => {
    env = await startVendure(kind, {
      // The store's own due days: a PIX is hours from its expiry whatever the hour this runs at (no clock here).
      vendure: { authOptions: { tokenMethod: ['cookie', 'bearer'] } },
    });
    storefront = await startStorefront(env.url);
    browser = await launchChromium();
    page = log.watch(await browser.context.newPage());
    await page.setViewportSize({ width: 390, height: 844 });
    shop = pageShopClient(page, browser.context);
  });
  afterAll(async () => {
    await browser?.close();
    await storefront?.close();
    await env?.close();
  });

  async function shot(name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}-390-${kind}.png`), fullPage: true });
  }

  /** The component's "not found" state, for whoever the page's session is now. */
  async function expectNotFound(orderCode: string): Promise<void> {
    await page.goto(storefront.confirmationUrl(orderCode));
    await component(page).locator('[part~=error]', { hasText: 'Pagamento não encontrado' }).waitFor();
    expect(await component(page).locator('[part~=status]').count()).toBe(0);
  }

  it('a guest pays by PIX: waiting with the code, then paid by itself; other shoppers get "not found"', async () => {
    // The guest's checkout, in the browser through the storefront's server: Vendure's session cookie is the page's.
    await page.goto(`${storefront.origin}/`);
    const guest: ShopEnv = { shop, variantId: env.variantId, shippingMethodId: env.shippingMethodId };
    const cart = await cartReadyToPay(guest, `component-${kind}@example.com`);
    const session = await startPayment(guest, { method: 'pix', document: CPF });
    expect(session).toMatchObject({ method: 'pix', orderCode: cart.code });
    const guestCookies = await browser.context.cookies();
    expect(guestCookies.map((c) => c.name)).toEqual(expect.arrayContaining(['session', 'session.sig']));

    await page.goto(storefront.confirmationUrl(cart.code));
    await statusReads(page, 'Aguardando pagamento');
    const element = component(page);
    expect(await element.locator('[part~=code]').inputValue()).toBe(session.pix!.payload);
    expect(await element.locator('[part~=qr]').getAttribute('src')).toBe(session.pix!.image);
    expect(await element.locator('[part~=amount]').textContent()).toMatch(/R\$\s*134,80/);
    expect(await page.evaluate("document.querySelector('invoice-payment').state")).toBe('waiting');
    expect(await axeFindings(page)).toEqual([]);
    await shot('pix-waiting');

    // Another shopper while it waits: a browser with no cookie of the store, a new anonymous session.
    await browser.context.clearCookies();
    await expectNotFound(cart.code);

    // Back to the guest's session; the sandbox's bank app pays the PIX and the page flips by itself.
    await browser.context.clearCookies();
    await browser.context.addCookies(guestCookies);
    await page.goto(storefront.confirmationUrl(cart.code));
    await statusReads(page, 'Aguardando pagamento');
    const paidEvent = page.evaluate(
      "new Promise((resolve) => document.addEventListener('paid', (e) => resolve(e.detail.view.invoiceNumber)))",
    );
    await env.sandbox.controls.pay(session.invoiceId!);
    await statusReads(page, 'Pagamento confirmado', 20_000);
    await expect(paidEvent).resolves.toBe(session.invoiceId);
    expect(await page.evaluate("document.querySelector('invoice-payment').state")).toBe('paid');
    await shot('pix-paid');

    // Another shopper, signed in to their own account, with the guest's order code: not found.
    await browser.context.clearCookies();
    await page.goto(`${storefront.origin}/`);
    const { customers } = await env.admin.query(
      gqlWith('query { customers(options: { take: 1 }) { items { emailAddress } } }'),
    );
    const { login } = await shop.query(LOGIN, {
      username: customers.items[0].emailAddress,
      password: 'test',
    });
    expect(login).toEqual({ id: expect.any(String) });
    await expectNotFound(cart.code);
    await shot('other-shopper');
    expect(log.unexpected()).toEqual([]);
  });

  it("an expired PIX offers a new code: the docs' renew asks the shop API, and the page waits again", async () => {
    await browser.context.clearCookies();
    await page.goto(`${storefront.origin}/`);
    const guest: ShopEnv = { shop, variantId: env.variantId, shippingMethodId: env.shippingMethodId };
    const cart = await cartReadyToPay(guest, `renew-${kind}@example.com`);
    const session = await startPayment(guest, { method: 'pix', document: CPF });
    await page.goto(storefront.confirmationUrl(cart.code));
    await statusReads(page, 'Aguardando pagamento');

    // The due day passes (the control moves it to yesterday); the renewal moves it past today.
    await env.sandbox.controls.overdue(session.invoiceId!);
    const before = env.sandbox.controls.getInvoice(session.invoiceId!)!.dueDay;
    await statusReads(page, 'Código PIX expirado', 20_000);
    await shot('pix-expired');
    await component(page).locator('[part~=renew-button]').click();
    await statusReads(page, 'Aguardando pagamento', 20_000);
    expect(env.sandbox.controls.getInvoice(session.invoiceId!)!.dueDay > before).toBe(true);
    expect(await component(page).locator('[part~=code]').inputValue()).toBe(session.pix!.payload);
    expect(log.unexpected()).toEqual([]);
  });
});
