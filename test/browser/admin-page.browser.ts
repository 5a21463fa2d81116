import type { Page } from 'playwright-core';
import type { RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../examples/demo-store/config';
import type { OrderView } from '../../examples/demo-store/views';
import type { AdminInboxView } from '../../src/settings/admin-operations.service';
import type { AdminInvoiceView } from '../../src/settings/admin-invoices.service';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { openDemoDatabase, startQuietDemo, testConfig } from '../demo/support';
import type { TestDatabase } from '../support/databases';
import { launchChromium, type Browser } from './support/chromium';
import { adminApi, adminPageUrl, pixOrderPaid, strayDelivery } from './support/demo';
import { PageLog, screenshot } from './support/page-log';
import { waitFor } from '../support/wait-for';

/** The admin page in Chromium against the demo store on SQLite, one store owner's session from sign-in on. */
describe('admin page in a browser', () => {
  let db: TestDatabase;
  let config: DemoConfig;
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  const log = new PageLog();
  let paid: { order: OrderView; invoiceNumber: string };
  /** The paid PIX invoice's local id. */
  let invoiceId: string;

  beforeAll(async () => {
    db = await openDemoDatabase('sqlite');
    // A short window, so a delivery for an invoice the store does not know is dead-lettered within a second.
    config = { ...testConfig(db), once: false, unknownInvoiceWindowMs: 500 };
    demo = await startQuietDemo(config);
    browser = await launchChromium();
    page = log.watch(await browser.context.newPage());
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await db?.destroy();
  });

  const api = <T>(path: string) => adminApi<T>(demo, config, path);
  const text = async (p: Page, selector: string, hasText: string) => {
    await p.locator(selector, { hasText }).first().waitFor();
    return p.locator(selector, { hasText }).first().textContent();
  };

  it('serves the page with a strict CSP, asks for the admin key and keeps it out of cookies', async () => {
    const response = await page.goto(adminPageUrl(demo).replace(/\/$/, ''));
    expect(page.url()).toBe(adminPageUrl(demo));
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    await page.locator('#sign-in').waitFor();
    expect(await page.locator('#sign-in-title').textContent()).toBe('Entrar');
    await screenshot(page, '01-sign-in');

    log.expectHttpError(401);
    await page.fill('#admin-key', 'not-the-admin-key-000000');
    await page.click('#sign-in-form button[type=submit]');
    await text(page, '#sign-in-error', 'Chave inválida.');

    await page.fill('#admin-key', config.adminKey);
    await page.click('#sign-in-form button[type=submit]');
    await page.locator('#settings-form').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('invoice-payments-admin-key')")).toBe(config.adminKey);
    expect(await browser.context.cookies()).toEqual([]);
  });

  it('shows every setting with its current value, masks secrets, and saves: an invalid field first, then valid', async () => {
    for (const field of [
      'baseUrl',
      'accessToken',
      'webhookToken',
      'mode',
      'enabledMethods',
      'dueDays',
      'wireProfile',
    ]) {
      expect(await page.locator(`[data-field="${field}"] .help`).textContent()).not.toBe('');
    }
    expect(await page.locator('[data-field="dueDays"] .current').textContent()).toContain(
      '3 (padrão do módulo)',
    );
    expect(await page.locator('[data-field="accessToken"] .current').textContent()).toMatch(/definido/);
    expect(await page.locator('#set-accessToken').inputValue()).toBe('');

    log.expectHttpError(400);
    await page.fill('#set-dueDays', '120');
    await page.click('#save-settings');
    // The API's code and limit, worded in the page's language with the field's label.
    await text(page, '[data-field="dueDays"] .field-error', 'Prazo de vencimento (dias): o máximo é 90.');
    expect(await page.locator('#set-dueDays').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[data-field="maxInstallments"] .field-error').textContent()).toBe('');
    await screenshot(page, '02-settings-invalid');
    expect((await api<{ dueDays: number }>('/settings')).dueDays).toBe(3);

    await page.fill('#set-dueDays', '5');
    await page.click('#save-settings');
    await text(page, '#status', 'Configurações salvas.');
    expect(await page.locator('[data-field="dueDays"] .current').textContent()).toContain(
      '5 (salvo no painel)',
    );
    expect((await api<{ dueDays: number }>('/settings')).dueDays).toBe(5);

    expect(await page.locator('#production-warning').isVisible()).toBe(false);
    await page.check('input[name="mode"][value="production"]');
    await page.locator('#production-warning').waitFor({ state: 'visible' });
    await page.check('input[name="mode"][value="sandbox"]');
    expect(await page.locator('#production-warning').isVisible()).toBe(false);
  });

  it('runs the credential check and says what the store can do, in words', async () => {
    await page.click('#check-credentials');
    await text(page, '#check-summary', 'Tudo certo');
    const rows = await page.locator('#check-result li').allTextContents();
    expect(rows.length).toBe(10);
    for (const line of [
      'Pode criar faturas: sim',
      'Pode fazer reembolsos: sim',
      'Pode consultar faturas: sim',
    ]) {
      expect(rows).toContain(line);
    }
    expect(rows.join(' ')).not.toMatch(/listMediations|invoice\.read|createInvoice/);
    const results = await page
      .locator('#check-result [data-result]')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-result')));
    expect(new Set(results)).toEqual(new Set(['ok']));
    await screenshot(page, '03-settings');
  });

  it('shows a PIX order paid by webhook, with its PIX code and status history', async () => {
    paid = await pixOrderPaid(demo, config);
    await page.click('#tab-invoices');
    await page.locator('#invoice-filters').waitFor();
    await page.fill('#filter-q', String(paid.order.display_id));
    await page.selectOption('#filter-method', 'pix');
    await waitFor(
      async () => {
        await page.click('#apply-filters');
        // Right after the click the list may still be the one before the filters: only one row, this order's, paid,
        // is the filtered list (or an earlier one that already shows the same).
        const rows = page.locator('#invoice-list tbody tr');
        const paidRow = rows
          .filter({ hasText: `Pedido nº ${paid.order.display_id}` })
          .locator('[data-status="5"]');
        return (await rows.count()) === 1 && (await paidRow.count()) === 1;
      },
      20_000,
      'the invoice listed as paid',
      250, // each poll asks the page for the list again
    );
    expect(await page.locator('#invoice-list tbody tr').count()).toBe(1);
    expect(await page.locator('#invoice-list tbody tr').textContent()).toContain(
      `Pedido nº ${paid.order.display_id}`,
    );
    invoiceId = (await page
      .locator('#invoice-list button[data-invoice]')
      .getAttribute('data-invoice')) as string;
    await page.click('#invoice-list button[data-invoice]');
    await page.locator('#detail-title').waitFor();
    expect(await page.locator('#pix-code').inputValue()).toMatch(/^000201/);
    const history = await page.locator('#invoice-history tbody tr').allTextContents();
    expect(history.some((row) => row.includes('Aguardando pagamento'))).toBe(true);
    expect(history.some((row) => row.includes('Pago') && row.includes('webhook'))).toBe(true);
    await screenshot(page, '04-invoice-paid');
  });

  it('refunds it partially after a confirmation, refusing more than what is left', async () => {
    const id = invoiceId;
    const before = await api<AdminInvoiceView>(`/invoices/${id}`);
    expect(before.statusCode).toBe(5);

    await page.fill('#refund-amount', '99999,00');
    await page.click('#refund');
    await text(page, '#action-error', 'O valor passa do que ainda pode ser reembolsado');
    expect(await page.locator('#confirm[open]').count()).toBe(0);
    expect((await api<AdminInvoiceView>(`/invoices/${id}`)).refundedCents).toBe(0);

    await page.fill('#refund-amount', '10,00');
    await page.click('#refund');
    await page.locator('#confirm[open]').waitFor();
    expect(await page.locator('#confirm-text').textContent()).toContain('R$\u00a010,00');
    await screenshot(page, '05-refund-confirm');
    await page.click('#confirm-ok');
    await text(page, '#status', 'Reembolso solicitado.');
    const after = await api<AdminInvoiceView>(`/invoices/${id}`);
    expect(after.refundedCents).toBe(1000);
    await page.locator('#refund-help').waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('R$\u00a010,00');
  });

  it('pages the invoice list by cursor: next, previous and the count', async () => {
    // 45 denied card invoices from last year (a status the demo's own orders never reach): pages of 20, 20 and 5.
    const at = (i: number) => new Date(Date.parse('2025-06-01T12:00:00.000Z') - i * 60_000);
    await db.dataSource.getRepository(InvoiceRecord).insert(
      Array.from({ length: 45 }, (_, i) => ({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        orderId: `paged_${i}`,
        attempt: 1,
        referrer: `paged_${i}`,
        creationState: 'created' as const,
        method: 'card' as const,
        statusCode: 12,
        currency: 'BRL',
        amountCents: 1000,
        displayId: String(900 + i),
        createdAt: at(i),
        updatedAt: at(i),
      })),
    );
    await page.click('#tab-invoices');
    await page.locator('#invoice-filters').waitFor();
    await page.selectOption('#filter-status', '12');
    await page.click('#apply-filters');
    const rows = page.locator('#invoice-list tbody tr');
    const ids = () =>
      page
        .locator('#invoice-list button[data-invoice]')
        .evaluateAll((b) => b.map((n) => n.getAttribute('data-invoice')));
    const pageOf = (n: number) => text(page, '#page-of', `Página ${n} de 3`);
    // The tab first lists every invoice (the demo's PIX too: also 3 pages), then the filter's 45.
    expect(await text(page, '#page-of', '(45 no total)')).toBe('Página 1 de 3 (45 no total)');
    expect(await rows.count()).toBe(20);
    expect(await page.locator('#page-prev').isDisabled()).toBe(true);
    const first = await ids();
    await page.click('#page-next');
    await pageOf(2);
    const second = await ids();
    expect(second).toHaveLength(20);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    await page.click('#page-next');
    await pageOf(3);
    expect(await rows.count()).toBe(5);
    expect(await page.locator('#page-next').isDisabled()).toBe(true);
    await page.click('#page-prev');
    await pageOf(2);
    expect(await ids()).toEqual(second);
    await screenshot(page, '05b-invoices-paged');
  });

  it('lists a dead-lettered delivery with its reason and alert, and retries it', async () => {
    const invoiceNumber = await strayDelivery(demo, paid.invoiceNumber);
    const dead = await waitFor(
      async () => {
        const inbox = await api<{ items: AdminInboxView[] }>('/webhooks/inbox?state=dead');
        return inbox.items.find((e) => e.gatewayId === invoiceNumber) ?? null;
      },
      20_000,
      'the delivery dead-lettered',
    );
    await page.click('#tab-operations');
    const row = page.locator('#ops-inbox-list tbody tr', { hasText: invoiceNumber });
    await row.waitFor();
    expect(await row.textContent()).toContain(`the service does not know invoice ${invoiceNumber}`);
    expect(await row.textContent()).toContain('Não pôde ser processado');
    expect(await row.locator('[data-state]').getAttribute('data-state')).toBe('dead');
    await page.locator('#ops-alerts-list [data-kind="webhook_dead_letter"]').first().waitFor();
    await screenshot(page, '06-operations');

    await row.locator('button[data-action]').click();
    await text(page, '#status', 'Reenviado para processamento.');
    // Processed once more; the service still has no such invoice, so it is dead again, one attempt later.
    await waitFor(
      async () => {
        const inbox = await api<{ items: AdminInboxView[] }>('/webhooks/inbox?state=dead');
        return inbox.items.find((e) => e.id === dead.id && e.attempts === dead.attempts + 1) ?? null;
      },
      20_000,
      'the retried delivery processed again',
    );
  });

  it('can be used with the keyboard only', async () => {
    const kb = log.watch(await browser.context.newPage());
    const focused = () => kb.evaluate<string>("document.activeElement?.id ?? ''");
    const tabUntil = async (matches: () => Promise<boolean>, key = 'Tab') => {
      for (let i = 0; i < 60; i++) {
        await kb.keyboard.press(key);
        if (await matches()) return;
      }
      throw new Error(`focus never reached the element (last: ${await focused()})`);
    };
    const isFocused = (id: string) => async () => (await focused()) === id;

    await kb.goto(adminPageUrl(demo));
    await kb.locator('#sign-in').waitFor();
    expect(await focused()).toBe('admin-key');
    await kb.keyboard.type(config.adminKey);
    await kb.keyboard.press('Enter');
    await kb.locator('#settings-form').waitFor();

    await tabUntil(isFocused('tab-settings'));
    await kb.keyboard.press('ArrowRight');
    expect(await focused()).toBe('tab-invoices');
    await kb.locator('#invoice-list tbody tr').first().waitFor();
    await tabUntil(() =>
      kb.evaluate<boolean>("document.activeElement?.hasAttribute('data-invoice') ?? false"),
    );
    await kb.keyboard.press('Enter');
    await kb.locator('#detail-title').waitFor();
    expect(await focused()).toBe('detail-title');
    await tabUntil(isFocused('refund-amount'));
    await kb.keyboard.type('1,00');
    await kb.keyboard.press('Tab');
    expect(await focused()).toBe('refund');
    await kb.keyboard.press('Enter');
    await kb.locator('#confirm[open]').waitFor();
    expect(await focused()).toBe('confirm-cancel');
    await kb.keyboard.press('Escape');
    await kb.locator('#confirm[open]').waitFor({ state: 'detached' });
    expect(await focused()).toBe('refund');
    expect((await api<AdminInvoiceView>(`/invoices/${invoiceId}`)).refundedCents).toBe(1000);

    await tabUntil(isFocused('tab-invoices'), 'Shift+Tab');
    await kb.keyboard.press('ArrowRight');
    expect(await focused()).toBe('tab-operations');
    await kb.locator('#ops-inbox-list tbody tr').first().waitFor();
    // Past the reason's folded technical detail, to the retry button.
    await tabUntil(() =>
      kb.evaluate<boolean>(
        "document.activeElement?.closest('#ops-inbox-list') != null && document.activeElement.hasAttribute('data-action')",
      ),
    );
    await kb.keyboard.press('Enter');
    await text(kb, '#status', 'Reenviado para processamento.');

    await tabUntil(isFocused('lang'), 'Shift+Tab');
    await kb.keyboard.press('End');
    await text(kb, '#tab-operations', 'Operations');
    await screenshot(kb, '07-keyboard-english');
    await kb.close();
  });

  it('logged no error in the browser console', () => {
    expect(log.unexpected()).toEqual([]);
    // The watcher is live: it saw the HTTP errors the tests caused on purpose (a wrong key, a refused setting).
    expect(log.errors).toHaveLength(2);
  });
});
