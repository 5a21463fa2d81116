import type { Page } from 'playwright-core';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import type { AdminAlertView } from '../../src/settings/admin-operations.service';
import type { AdminInvoiceView } from '../../src/settings/admin-invoices.service';
import type { Page as ListPage } from '../../src/index';
import { openDemoDatabase, startQuietDemo, testConfig } from '../demo/support';
import type { TestDatabase } from '../support/databases';
import { launchChromium, type Browser } from './support/chromium';
import {
  adminApi,
  adminPageUrl,
  deadTrackingCodes,
  pixOrderOpen,
  pixOrderPaid,
  sandboxPay,
} from './support/demo';
import { PageLog, screenshot } from './support/page-log';
import { waitFor } from '../support/wait-for';

/** What the page says in each language, where the tests read it. */
const TEXT = {
  'pt-BR': {
    tooLarge: 'Prazo de vencimento (dias): o máximo é 90.',
    canCreate: 'Pode criar faturas: sim',
    order: (n: number) => `Pedido nº ${n}`,
    remaining: 'Pode reembolsar até R$\u00a0114,80',
    tooMuch: 'O valor passa do que ainda pode ser reembolsado (R$\u00a0114,80).',
    cancelRefused: 'Cancelar fatura: não é possível porque a fatura está "Pago".',
    trackingAlert: 'rastreio não enviado',
    trackingReason: 'Não enviado: o serviço de pagamentos recusou os dados.',
    noActions: 'Nenhuma ação',
  },
  en: {
    tooLarge: 'Due in (days): at most 90.',
    canCreate: 'Can create invoices: yes',
    order: (n: number) => `Order #${n}`,
    remaining: 'You can refund up to R$114.80',
    tooMuch: 'The amount is more than what can still be refunded (R$114.80).',
    cancelRefused: 'Cancel invoice: not possible because the invoice is "Paid".',
    trackingAlert: 'tracking not sent',
    trackingReason: 'Not sent: the payment service refused the data.',
    noActions: 'No action',
  },
} as const;

const WIDTHS = [390, 1280] as const;
const LANGS = ['pt-BR', 'en'] as const;

/**
 * The admin page as a store owner sees it on a phone (390 px) and a desktop (1280 px), in Portuguese and English:
 * no sideways scrolling on any page, errors in words naming the field and the limit, only the actions the invoice's
 * state allows, the refund bounded by what is left, orders by their number and customer, amounts that keep "R$"
 * with the number, advanced settings folded away, the credential check in words, a dead tracking code as an alert.
 * A screenshot of every page at both widths in both languages goes to test-results/admin-page/.
 */
describe('admin page at phone and desktop widths, in Portuguese and English', () => {
  let db: TestDatabase;
  let config: DemoConfig;
  let demo: RunningDemo;
  let browser: Browser;
  let paid: Awaited<ReturnType<typeof pixOrderPaid>>;
  const api = <T>(path: string) => adminApi<T>(demo, config, path);

  beforeAll(async () => {
    db = await openDemoDatabase('sqlite');
    config = { ...testConfig(db), once: false };
    demo = await startQuietDemo(config);
    browser = await launchChromium();
    paid = await pixOrderPaid(demo, config, {
      first_name: 'Joana',
      last_name: 'Prado',
      email: 'joana.prado@example.com',
    });
    const paidInvoice = await waitFor(
      async () => {
        const page = await api<ListPage<AdminInvoiceView>>(`/invoices?q=${paid.order.display_id}&status=5`);
        return page.items[0] ?? null;
      },
      20_000,
      'the invoice paid',
    );
    await deadTrackingCodes(demo, paidInvoice.id, paid.order.id);
    await waitFor(
      async () => {
        const alerts = await api<ListPage<AdminAlertView>>('/alerts');
        return alerts.items.some((a) => a.kind === 'tracking_failed');
      },
      20_000,
      'the tracking alert',
    );
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await db?.destroy();
  });

  /** A new tab at `width`, in `lang`, signed in. */
  async function open(width: number, lang: string, log: PageLog): Promise<Page> {
    const page = log.watch(await browser.context.newPage());
    await page.setViewportSize({ width, height: 860 });
    await page.addInitScript(`localStorage.setItem('invoice-payments-admin-lang', ${JSON.stringify(lang)})`);
    await page.goto(adminPageUrl(demo));
    await page.locator('#sign-in').waitFor();
    // Sign-in says where the key comes from.
    expect(await page.locator('#sign-in-help').textContent()).toContain('admin.adminKey');
    await page.fill('#admin-key', config.adminKey);
    await page.click('#sign-in-form button[type=submit]');
    await page.locator('#settings-form').waitFor();
    return page;
  }

  /** The page scrolls only up and down: nothing is wider than the window. */
  async function expectNoSideScroll(page: Page, where: string) {
    const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
      '({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })',
    );
    expect({ where, tooWide: scrollWidth > innerWidth ? scrollWidth : false }).toEqual({
      where,
      tooWide: false,
    });
  }

  for (const lang of LANGS) {
    for (const width of WIDTHS) {
      const words = TEXT[lang];
      const shot = (p: Page, name: string) => screenshot(p, `${lang}-${width}-${name}`);

      it(`settings at ${width} px in ${lang}: plain, advanced folded, errors in words, check in words`, async () => {
        const log = new PageLog();
        const page = await open(width, lang, log);
        await expectNoSideScroll(page, 'settings');
        expect(await page.locator('#advanced-settings').getAttribute('open')).toBeNull();
        expect(await page.locator('#set-baseUrl').isVisible()).toBe(false);
        expect(await page.locator('#set-wireProfile').isVisible()).toBe(false);
        expect(await page.locator('#set-dueDays').isVisible()).toBe(true);
        const visible = await page.locator('#settings-form').innerText();
        expect(visible).not.toMatch(/\{base_url\}|Token Bearer|Fuso IANA|ecommerce\.store_id|IANA/);
        await shot(page, '1-settings');

        log.expectHttpError(400);
        await page.fill('#set-dueDays', '120');
        await page.click('#save-settings');
        const error = page.locator('[data-field="dueDays"] .field-error');
        await error.filter({ hasText: words.tooLarge }).waitFor();
        expect(await error.textContent()).toBe(words.tooLarge);
        await expectNoSideScroll(page, 'settings with an error');
        await shot(page, '2-settings-error');

        await page.click('#advanced-settings > summary');
        expect(await page.locator('#set-baseUrl').isVisible()).toBe(true);
        await expectNoSideScroll(page, 'advanced settings');
        await page.click('#check-credentials');
        await page.locator('#check-result li').first().waitFor();
        expect(await page.locator('#check-result li').allTextContents()).toContain(words.canCreate);
        await expectNoSideScroll(page, 'credential check');
        await shot(page, '3-settings-advanced-check');
        expect(log.unexpected()).toEqual([]);
        await page.close();
      });

      it(`invoices at ${width} px in ${lang}: order number and customer, searchable, NBSP amounts, actions by state`, async () => {
        const log = new PageLog();
        const page = await open(width, lang, log);
        const waiting = await pixOrderOpen(demo, config, {
          first_name: 'Carlos',
          last_name: `Souza ${lang} ${width}`,
          email: `carlos.${width}@example.com`,
        });
        await page.click('#tab-invoices');
        await page.locator('#invoice-list tbody tr').first().waitFor();
        await expectNoSideScroll(page, 'invoice list');
        await shot(page, '4-invoices');

        // Found by the customer's name, shown by the order's number.
        await page.fill('#filter-q', 'joana PRADO');
        await page.click('#apply-filters');
        // The paid order is in the unfiltered list too: wait for the filtered list (one row), or fail on timeout.
        // Polled from here: a string predicate is evaluated in the page, which the admin CSP (no 'unsafe-eval')
        // refuses once Playwright has to poll it.
        const rows = page.locator('#invoice-list tbody tr');
        await waitFor(async () => (await rows.count()) === 1, 10_000, 'the filtered invoice list at one row');
        const row = page.locator('#invoice-list tbody tr', { hasText: words.order(paid.order.display_id) });
        await row.waitFor();
        expect(await page.locator('#invoice-list tbody tr').count()).toBe(1);
        expect(await row.textContent()).toContain('Joana Prado');
        const amount = row.locator('td.num').first();
        expect(await amount.textContent()).toBe(lang === 'en' ? 'R$114.80' : 'R$\u00a0114,80');
        expect(
          await amount.evaluate(
            (td) =>
              (
                globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }
              ).getComputedStyle(td).whiteSpace,
          ),
        ).toBe('nowrap');

        // Paid: only the refund, bounded by what is left.
        await row.locator('button[data-invoice]').click();
        await page.locator('#detail-title').waitFor();
        expect(await page.locator('#invoice-detail').textContent()).toContain('***.982.247-**');
        expect(await page.locator('#refund').count()).toBe(1);
        expect(await page.locator('#change-due-date').count()).toBe(0);
        expect(await page.locator('#cancel-invoice').count()).toBe(0);
        expect(await page.locator('#refund-help').textContent()).toContain(words.remaining);
        await page.fill('#refund-amount', '9999,00');
        await page.click('#refund');
        expect(await page.locator('#action-error').textContent()).toBe(words.tooMuch);
        expect(await page.locator('#confirm[open]').count()).toBe(0);
        await expectNoSideScroll(page, 'paid invoice');
        await shot(page, '5-invoice-paid');

        // Waiting for payment: due date and cancel, no refund. Paid meanwhile: the refusal in words.
        await page.fill('#filter-q', `carlos.${width}@`);
        await page.click('#apply-filters');
        const open1 = page.locator('#invoice-list tbody tr', {
          hasText: words.order(waiting.order.display_id),
        });
        await open1.waitFor();
        await open1.locator('button[data-invoice]').click();
        await page.locator('#cancel-invoice').waitFor();
        expect(await page.locator('#change-due-date').count()).toBe(1);
        expect(await page.locator('#refund').count()).toBe(0);
        await expectNoSideScroll(page, 'waiting invoice');
        await shot(page, '6-invoice-waiting');
        await sandboxPay(demo, config, waiting.invoiceNumber);
        await waitFor(
          async () => {
            const found = await api<ListPage<AdminInvoiceView>>(`/invoices?q=carlos.${width}@&status=5`);
            return found.items.length === 1;
          },
          20_000,
          'paid at the store',
        );
        log.expectHttpError(409);
        await page.click('#cancel-invoice');
        await page.locator('#confirm[open]').waitFor();
        expect(await page.locator('#confirm-text').textContent()).toContain(
          lang === 'en' ? 'R$114.80' : 'R$\u00a0114,80',
        );
        await shot(page, '7-cancel-confirm');
        await page.click('#confirm-ok');
        await page.locator('#action-error', { hasText: words.cancelRefused }).waitFor();
        expect(log.unexpected()).toEqual([]);
        await page.close();
      });

      it(`operations at ${width} px in ${lang}: a dead tracking code is an alert, long errors fold`, async () => {
        const log = new PageLog();
        const page = await open(width, lang, log);
        await page.click('#tab-operations');
        const alert = page.locator('#ops-alerts-list [data-kind="tracking_failed"]').first();
        await alert.waitFor();
        expect(await alert.textContent()).toBe(words.trackingAlert);
        // The order by its number, as the store knows it.
        const number = words.order(paid.order.display_id);
        expect(
          await page.locator('#ops-alerts-list tbody tr', { hasText: words.trackingAlert }).textContent(),
        ).toContain(number);
        expect(await page.locator('#ops-outbox-list tbody tr').first().textContent()).toContain(number);
        await page
          .locator('#ops-outbox-list [data-error-code="validation"]', { hasText: words.trackingReason })
          .waitFor();
        await expectNoSideScroll(page, 'operations');
        const table = await page.locator('#ops-outbox-list table').boundingBox();
        expect(table!.x + table!.width).toBeLessThanOrEqual(width);
        await shot(page, '8-operations');
        // Unfolded, the long technical message wraps inside its cell.
        await page.locator('#ops-outbox-list details.technical summary').last().click();
        await expectNoSideScroll(page, 'operations with a long error open');
        await shot(page, '9-operations-detail');
        expect(log.unexpected()).toEqual([]);
        await page.close();
      });
    }
  }
});
