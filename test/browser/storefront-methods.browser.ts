import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import { openDemoDatabase, startQuietDemo, testConfig } from '../demo/support';
import type { TestDatabase } from '../support/databases';
import { launchChromium, type Browser } from './support/chromium';
import { PageLog } from './support/page-log';
import {
  axeFindings,
  carries,
  component,
  recordRequests,
  type SentRequest,
  shot,
  statusReads,
} from './support/storefront';

/** The bank slip, the card (a decline, then a retry) and an expired PIX on the demo's shop page, in Chromium. */
describe('storefront: slip, card and expired PIX on the demo shop page', () => {
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
  }, 90_000);
  beforeEach(async () => {
    page = log.watch(await browser.context.newPage());
    await page.setViewportSize({ width: 390, height: 844 });
  });
  afterEach(async () => {
    await page.close();
    expect(log.unexpected()).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await db?.destroy();
  });

  /**
   * The card data went to the service's tokenization endpoint and nowhere else: every request of the page went to
   * the store's origin or to the service's script and endpoint; the number and CVV of each card tried are in the
   * endpoint's requests (one per card sent: the mistyped number never left) and in none of the store's, whose
   * payment call carries the token the service answered.
   */
  async function cardStayedInTheBrowser(sent: SentRequest[]): Promise<void> {
    const gateway = demo.sandbox!.url;
    const tokenization = `${gateway}/card-tokens`;
    const store = new URL(demo.storeUrl).origin;
    expect(
      sent.filter(
        (r) => new URL(r.url).origin !== store && ![`${gateway}/js/card.js`, tokenization].includes(r.url),
      ),
    ).toEqual([]);
    const toService = sent.filter((r) => r.url === tokenization && r.method === 'POST');
    const others = sent.filter((r) => !toService.includes(r));
    for (const number of ['4111111111111112', '4000000000000002', '4111111111111111']) {
      expect(others.filter((r) => carries(r, number)).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    }
    expect(others.filter((r) => carries(r, CVV)).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(toService.map((r) => ['4000000000000002', '4111111111111111'].find((n) => carries(r, n)))).toEqual(
      ['4000000000000002', '4111111111111111'],
    );
    expect(toService.every((r) => carries(r, CVV))).toBe(true);
    const tokens = await Promise.all(
      toService.map(async (r) => ((await (await r.request.response())!.json()) as { token: string }).token),
    );
    const payments = others.filter(
      (r) => r.method === 'POST' && /\/store\/orders\/[^/]+\/payment$/.test(r.url),
    );
    expect(payments.map((r) => (JSON.parse(r.body) as { card: unknown }).card)).toEqual(
      tokens.map((token) => ({ token, expiry: '12/30', holder_name: 'MARIA SOUZA' })),
    );
  }

  /** Places the prefilled order on `/shop` with `method`. */
  async function order(method: 'pix' | 'billet' | 'card'): Promise<void> {
    await page.goto(`${demo.storeUrl}/shop`);
    await page.locator('#products input').first().waitFor();
    await page.locator(`input[name=method][value=${method}]`).check();
    await page.getByRole('button', { name: 'Fazer pedido' }).click();
    await component(page).locator('[part~=status]').waitFor();
  }

  it('shows the slip: digitable line with copy, ITF barcode, link and due date, and when it will be confirmed', async () => {
    await order('billet');
    const el = component(page);
    await statusReads(page, 'Aguardando pagamento');
    expect(await el.locator('[part~=line]').inputValue()).toMatch(
      /^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/,
    );
    // The copy button copies the digits as the store gave them; banking apps take both.
    expect(await el.locator('[part~=copy-button]').textContent()).toBe('Copiar código');
    // 44 digits in Interleaved 2 of 5: 4 start + 22 pairs × 10 + 3 stop elements, bars every other one.
    expect(await el.locator('[part~=barcode] rect').count()).toBe((4 + 22 * 10 + 3 + 1) / 2);
    expect(await el.locator('[part~=slip-link]').getAttribute('href')).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\//,
    );
    expect(await el.locator('[part~=due-date]').textContent()).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
    expect(await el.locator('[part~=note]').textContent()).toContain('assim que o banco compensar o boleto');
    await shot(page, 'billet-390');
    await page.setViewportSize({ width: 320, height: 700 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    await shot(page, 'billet-320');
    expect(await axeFindings(page)).toEqual([]);
  });

  it('a declined card says why in the shopper words, and the retry with another card is paid', async () => {
    const sent = recordRequests(page);
    await order('card');
    const el = component(page);
    expect(await el.locator('[part~=status]').textContent()).toBe('Cartão de crédito');
    expect(await el.locator('#card-installments option').nth(2).textContent()).toMatch(
      /^3x: 1 de R\$\s21,64 e 2 de R\$\s21,63$/,
    );
    await shot(page, 'card-form-320');
    expect(await axeFindings(page)).toEqual([]);

    // A mistyped number is caught before anything leaves the browser.
    await fillCard(page, '4111111111111112');
    await el.locator('[part~=submit]').click();
    await el.locator('#card-number-error', { hasText: 'Número de cartão inválido.' }).waitFor();
    expect(await el.locator('#card-number').getAttribute('aria-invalid')).toBe('true');

    await fillCard(page, '4000000000000002');
    await el.locator('#card-installments').selectOption('3');
    await el.locator('[part~=submit]').click();
    await statusReads(page, 'Pagamento não aprovado');
    await el.locator('[part~=error]', { hasText: 'O banco emissor recusou o pagamento' }).waitFor();
    await shot(page, 'card-declined-390');
    expect(await axeFindings(page)).toEqual([]);

    // Keyboard only: the retry button is reachable and brings the form back with the cursor in it.
    await el.locator('[part~=retry-button]').focus();
    await page.keyboard.press('Enter');
    await el.locator('#card-holder').waitFor();
    await fillCard(page, '4111 1111 1111 1111');
    await el.locator('#card-cvv').focus();
    await page.keyboard.press('Enter');
    await statusReads(page, 'Pagamento confirmado', 15_000);
    expect(await el.locator('[part~=container]').textContent()).toContain('Visa final 1111');
    await cardStayedInTheBrowser(sent);
  });

  it('an expired PIX offers a new code through the store', async () => {
    await order('pix');
    await statusReads(page, 'Aguardando pagamento');
    const number = await page.evaluate<string>(
      "document.querySelector('invoice-payment').view.invoiceNumber",
    );
    // Two days pass: the record's due day is behind us (as the clock would leave it), the service still awaits.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    await demo.app
      .get(DataSource)
      .getRepository(InvoiceRecord)
      .update({ gatewayId: number }, { dueDate: twoDaysAgo });
    await statusReads(page, 'Código PIX expirado', 15_000);
    const renew = component(page).locator('[part~=renew-button]');
    expect(await renew.textContent()).toBe('Gerar novo código PIX');
    await shot(page, 'pix-expired-390');
    expect(await axeFindings(page)).toEqual([]);
    await renew.click();
    await statusReads(page, 'Aguardando pagamento');
    expect(await component(page).locator('[part~=code]').inputValue()).toMatch(/^000201/);
    await component(page)
      .locator('[part~=countdown]', { hasText: /^(Expira em|Válido até)/ })
      .waitFor();
    const dueDay = demo.sandbox!.controls.getInvoice(number)?.dueDay as string;
    expect(dueDay > twoDaysAgo).toBe(true);
  });

  it('speaks English with lang="en"', async () => {
    await order('pix');
    await page.evaluate("document.querySelector('invoice-payment').setAttribute('lang', 'en')");
    await statusReads(page, 'Awaiting payment');
    expect(await component(page).locator('[part~=copy-button]').textContent()).toBe('Copy code');
  });
});

/** Types a card into the form (holder, number, expiry, CVV), replacing what was there. */
async function fillCard(page: Page, number: string): Promise<void> {
  const el = component(page);
  await el.locator('#card-holder').fill('MARIA SOUZA');
  await el.locator('#card-number').fill(number);
  await el.locator('#card-expiry').fill('12/30');
  await el.locator('#card-cvv').fill(CVV);
}

/** The test cards' CVV: three digits no other request of the page has as a word of its own. */
const CVV = '937';
