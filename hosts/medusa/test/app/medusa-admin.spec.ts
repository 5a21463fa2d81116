import type { Browser, Page } from 'playwright-core';
import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import {
  badgeColor,
  launchChromium,
  orderWidget,
  settingsPage,
  shown,
  signedIn,
  timesOutside,
  WIDTHS,
} from './admin-pages';
import { freePort, MedusaApp, until } from './medusa-app';
import { MedusaStore } from './store';

/*
 * The owner's screens in Medusa's admin, in Chromium at 1280 and 390 px, in English and in Portuguese (Medusa's
 * language setting): the order page's widget on a PIX awaiting payment, an overdue bank slip, a paid and shipped
 * PIX and a card refunded in part, and Settings → Invoice payments. A real `medusa build` + `medusa start` app
 * (medusa-config.ts: the plugin and its provider, sandbox mode, no webhook password) on a fresh database, the
 * package's sandbox as the service. Screenshots in test-results/.
 */
let sandbox: SandboxServer;
let app: MedusaApp;
let store: MedusaStore;
let browser: Browser;
let english: Page;
let portuguese: Page;
const orders = { pending: '', paid: '', card: '', overdue: '' };
let dueDate = '';
/** When the owner saved a setting through the plugin's admin API. */
let changedAt: Date;

/** The day of `at` as the admin's language writes it (`29 de nov. de 2026`, `Nov 29, 2026`), in this machine's zone. */
const dayIn = (tag: string, at: Date) => new Intl.DateTimeFormat(tag, { dateStyle: 'medium' }).format(at);

async function paymentStatus(orderId: string): Promise<string> {
  return (await store.order(orderId)).payment_status;
}

/** Shipped from Medusa's admin with a label: the plugin sends its tracking code to the service. */
async function ship(orderId: string, trackingNumber: string) {
  const items = (await store.order(orderId)).items.map((i: { id: string }) => ({ id: i.id, quantity: 1 }));
  const fulfilled = await store.call('POST', `/admin/orders/${orderId}/fulfillments?fields=*fulfillments`, {
    items,
    location_id: store.locationId,
  });
  const fulfillmentId = fulfilled.order.fulfillments[0].id;
  await store.call('POST', `/admin/orders/${orderId}/fulfillments/${fulfillmentId}/shipments`, {
    items,
    labels: [{ tracking_number: trackingNumber, tracking_url: '', label_url: 'https://rastreio.example/l' }],
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ webhookRetry: { attempts: 2, baseDelayMs: 50 } });
  app = new MedusaApp(await freePort(), sandbox.url);
  await app.prepare();
  await app.start();
  store = new MedusaStore(app.url);
  await store.setUp();

  const pending = await store.checkout({ method: 'pix' });
  orders.pending = pending.order.id;
  dueDate = sandbox.controls.getInvoice(pending.session.data.gatewayId)!.dueDay;
  const [pendingView] = (await store.call('GET', `/admin/invoice-payments/orders/${orders.pending}`))
    .invoices;
  expect(pendingView).toMatchObject({ statusCode: 1, statusTone: 'open', payBy: dueDate });

  const overdue = await store.checkout({ method: 'billet' });
  orders.overdue = overdue.order.id;
  await sandbox.controls.overdue(overdue.session.data.gatewayId);
  await until(
    async () => {
      const { invoices } = await store.call('GET', `/admin/invoice-payments/orders/${orders.overdue}`);
      return invoices[0].statusCode === 15;
    },
    60_000,
    'bank slip overdue',
  );

  const paid = await store.checkout({ method: 'pix' });
  orders.paid = paid.order.id;
  await sandbox.controls.pay(paid.session.data.gatewayId);
  await until(async () => (await paymentStatus(paid.order.id)) === 'captured', 60_000, 'PIX captured');
  await ship(paid.order.id, 'BR123456789BR');
  await until(
    async () => {
      const { invoices } = await store.call('GET', `/admin/invoice-payments/orders/${orders.paid}`);
      return invoices[0].tracking[0]?.status === 'sent';
    },
    60_000,
    'tracking code at the service',
  );

  const token = sandbox.controls.createCardToken({
    number: TEST_CARDS.approved,
    holder: 'ANA SOUZA',
    expiry: '12/40',
  });
  const card = await store.checkout({
    method: 'card',
    card: { token: token.token, expiry: '12/40', holder_name: 'ANA SOUZA' },
    installments: 1,
  });
  orders.card = card.order.id;
  await until(async () => (await paymentStatus(card.order.id)) === 'captured', 60_000, 'card captured');
  const payment = (await store.order(card.order.id)).payment_collections[0].payments[0];
  await store.call('POST', `/admin/payments/${payment.id}/refund`, { amount: 20 });
  await until(
    async () => (await paymentStatus(card.order.id)) === 'partially_refunded',
    30_000,
    'partially refunded',
  );

  // The owner changes a setting through the plugin's admin API, signed in as the calls above: refused past its
  // bounds (a 400 naming the field), then saved; the settings page shows the change and when it was made.
  const refused = await store.fetch('POST', '/admin/invoice-payments/settings', { maxInstallments: 13 });
  expect(refused.status).toBe(400);
  await expect(refused.json()).resolves.toMatchObject({ field: 'maxInstallments' });
  const saved = await store.call('POST', '/admin/invoice-payments/settings', { maxInstallments: 6 });
  expect(saved.settings).toMatchObject({ maxInstallments: 6, overridden: ['maxInstallments'] });
  changedAt = new Date(saved.settings.updatedAt);
  expect(Number.isNaN(changedAt.getTime())).toBe(false);

  browser = await launchChromium();
  english = await signedIn(browser, app.url, 'en-US');
  portuguese = await signedIn(browser, app.url, 'pt-BR', 'ptBR');
}, 1_800_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await app?.dropDatabase();
  await sandbox?.close();
}, 60_000);

describe.each(WIDTHS)('at %i px', (width) => {
  it('English: a PIX awaiting payment: the words, an orange badge, the invoice number and the due date', async () => {
    const widget = await orderWidget(english, app.url, orders.pending, width, 'medusa-widget-pix-pending-en');
    const status = widget.getByTestId('invoice-payments-status');
    await expect(shown(status)).resolves.toBe('Awaiting payment');
    await expect(badgeColor(status)).resolves.toBe('orange');
    await expect(shown(widget.getByTestId('invoice-payments-number'))).resolves.toMatch(/\S{4,}/);
    const [year, month, day] = dueDate.split('-').map(Number);
    const written = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(
      Date.UTC(year, month - 1, day),
    );
    await expect(shown(widget.getByTestId('invoice-payments-due-date'))).resolves.toContain(written);
    await expect(shown(widget.getByTestId('invoice-payments-method'))).resolves.toBe('PIX');
    await expect(widget.getByTestId('invoice-payments-pix-qr').getAttribute('src')).resolves.toMatch(/^http/);
    // Nothing paid yet: nothing to refund is said.
    await expect(widget.getByTestId('invoice-payments-refundable').count()).resolves.toBe(0);
  }, 120_000);

  it('English: an overdue bank slip: "Overdue" in grey, with its due date and line', async () => {
    const widget = await orderWidget(
      english,
      app.url,
      orders.overdue,
      width,
      'medusa-widget-billet-overdue-en',
    );
    const status = widget.getByTestId('invoice-payments-status');
    await expect(shown(status)).resolves.toBe('Overdue');
    await expect(badgeColor(status)).resolves.toBe('neutral');
    await expect(shown(widget.getByTestId('invoice-payments-method'))).resolves.toBe('Bank slip');
    await expect(shown(widget.getByTestId('invoice-payments-due-date'))).resolves.toMatch(
      /^Due date\s+\w{3} \d{1,2}, \d{4}$/,
    );
    await expect(shown(widget.getByTestId('invoice-payments-billet-line'))).resolves.toContain(
      'Open the bank slip',
    );
  }, 120_000);

  it('English: a paid, shipped PIX: "Paid" in green, amounts as Medusa shows the order total, the tracking code', async () => {
    const widget = await orderWidget(english, app.url, orders.paid, width, 'medusa-widget-pix-paid-en');
    const status = widget.getByTestId('invoice-payments-status');
    await expect(shown(status)).resolves.toBe('Paid');
    await expect(badgeColor(status)).resolves.toBe('green');
    const paid = await shown(widget.getByTestId('invoice-payments-paid'));
    expect(paid).toMatch(/^Paid\s+R\$\s?134\.80$/);
    // The same text in Medusa's own sections of the page (the order's total, its payment).
    await expect(timesOutside(english, widget, paid.replace(/^Paid\s+/, ''))).resolves.toBeGreaterThan(0);
    await expect(widget.getByTestId('invoice-payments-due-date').count()).resolves.toBe(0);
    // Paid: no code or QR an operator could send a customer to pay again.
    await expect(widget.getByTestId('invoice-payments-pix-code').count()).resolves.toBe(0);
    await expect(widget.getByTestId('invoice-payments-pix-qr').count()).resolves.toBe(0);
    const tracking = await shown(widget.getByTestId('invoice-payments-tracking'));
    expect(tracking).toMatch(/^Tracking code\s+BR123456789BR\s+at the service$/);
  }, 120_000);

  it('Portuguese: a card refunded in part: "Parcialmente reembolsado" in orange, the card, the refund in words', async () => {
    const widget = await orderWidget(portuguese, app.url, orders.card, width, 'medusa-widget-card-pt');
    const status = widget.getByTestId('invoice-payments-status');
    await expect(shown(status)).resolves.toBe('Parcialmente reembolsado');
    await expect(badgeColor(status)).resolves.toBe('orange');
    await expect(shown(widget.getByTestId('invoice-payments-method'))).resolves.toBe('Cartão');
    await expect(shown(widget.getByTestId('invoice-payments-card'))).resolves.toMatch(
      /Cartão\s+Visa •••• 1111/,
    );
    await expect(shown(widget.getByTestId('invoice-payments-refund-state'))).resolves.toBe('Reembolsado');
    const refunds = await shown(widget.getByTestId('invoice-payments-refunds'));
    expect(refunds).toMatch(/R\$\s20,00/);
    await expect(shown(widget.getByTestId('invoice-payments-refundable'))).resolves.toMatch(/R\$\s114,80/);
    await expect(shown(widget)).resolves.toContain('Pagamento da fatura');
    await expect(shown(widget)).resolves.not.toMatch(/partially_refunded|succeeded|\bcard\b/);
  }, 120_000);

  it('Portuguese: a PIX awaiting payment: "Aguardando pagamento" and "Vencimento" in Portuguese', async () => {
    const widget = await orderWidget(
      portuguese,
      app.url,
      orders.pending,
      width,
      'medusa-widget-pix-pending-pt',
    );
    await expect(shown(widget.getByTestId('invoice-payments-status'))).resolves.toBe('Aguardando pagamento');
    const due = await shown(widget.getByTestId('invoice-payments-due-date'));
    expect(due).toMatch(/^Vencimento\s+\d{1,2} de [a-zç]{3}\.? de \d{4}$/);
  }, 120_000);

  it('Portuguese: Settings → Invoice payments: labels, values in words, secrets masked, the warnings', async () => {
    const settings = await settingsPage(portuguese, app.url, width, 'medusa-settings-pt');
    const row = async (name: string) => shown(settings.getByTestId(`invoice-payments-setting-${name}`));
    await expect(row('mode')).resolves.toMatch(
      /^Modo\s+Testes \(sandbox\)\s+medusa-config\.ts: gateway\.mode$/,
    );
    await expect(row('accessToken')).resolves.toMatch(/^Chave de acesso do serviço\s+Definido\s/);
    await expect(row('webhookToken')).resolves.toMatch(/^Senha dos avisos do serviço\s+Não definido\s/);
    await expect(row('enabledMethods')).resolves.toMatch(/^Formas de pagamento\s+PIX, Boleto, Cartão\s/);
    await expect(row('dueDays')).resolves.toMatch(/^Prazo de vencimento \(dias\)\s+3 dias\s/);
    await expect(row('maxInstallments')).resolves.toMatch(
      /\sAté 6x\s+Salvo nas configurações do módulo \(vale sobre o medusa-config\.ts\)$/,
    );
    // The change's time in Portuguese: day, month, year, then the hour (`29 de nov. de 2026, 15:14`).
    const changed = await row('updatedAt');
    expect(changed).toMatch(/^Última alteração\s+\d{1,2} de [a-zç]{3}\.? de \d{4},? \d{2}:\d{2}$/);
    expect(changed).toContain(dayIn('pt-BR', changedAt));
    await expect(row('baseUrl')).resolves.toContain(sandbox.url);
    const warning = settings.getByTestId('invoice-payments-warning-webhook_token_missing');
    await expect(shown(warning)).resolves.toContain('A senha dos avisos do serviço não está definida');
    await expect(shown(warning)).resolves.toContain('webhooks.merchantToken');
    await expect(warning.getByRole('link').getAttribute('href')).resolves.toBe(
      '#invoice-payments-setting-webhookToken',
    );
    const sandboxWarning = settings.getByTestId('invoice-payments-warning-sandbox_in_production');
    await expect(shown(sandboxWarning)).resolves.toContain('Modo de testes em produção');
    await expect(shown(settings)).resolves.not.toContain('sandbox-token');
    // Each row: a label in words, then the value in words (no key, JSON, `null` or ISO time), then where it is set.
    const rows = await settings.locator('[data-testid^="invoice-payments-setting-"]').allInnerTexts();
    expect(rows.length).toBeGreaterThan(10);
    for (const text of rows) {
      const [label, value] = text.split('\n').filter((line) => line.trim());
      expect(label).not.toMatch(/[a-z][A-Z]/);
      expect(value).not.toMatch(/[{}[\]"]|^null$|\d{4}-\d{2}-\d{2}T/);
    }
  }, 120_000);

  it('English: Settings → Invoice payments: labels, "Not set", the warnings', async () => {
    const settings = await settingsPage(english, app.url, width, 'medusa-settings-en');
    const row = async (name: string) => shown(settings.getByTestId(`invoice-payments-setting-${name}`));
    await expect(row('webhookToken')).resolves.toMatch(/^Password of the service's notices\s+Not set\s/);
    await expect(row('enabledMethods')).resolves.toMatch(/^Payment methods\s+PIX, Bank slip, Card\s/);
    await expect(row('maxInstallments')).resolves.toMatch(
      /^Most installments\s+Up to 6x\s+Saved in the module’s settings \(overrides medusa-config\.ts\)$/,
    );
    // The change's time as Medusa writes dates in English (`Nov 29, 2026, 3:14 PM`): no ISO time, no raw value.
    const changed = await row('updatedAt');
    expect(changed).toMatch(/^Last changed\s+[A-Z][a-z]{2} \d{1,2}, \d{4},? \d{1,2}:\d{2}\s?[AP]M$/);
    expect(changed).toContain(dayIn('en', changedAt));
    expect(changed).not.toMatch(/\d{4}-\d{2}-\d{2}|null|[{}"]/);
    await expect(
      shown(settings.getByTestId('invoice-payments-warning-webhook_token_missing')),
    ).resolves.toContain('The password of the service’s notices is not set');
    await expect(
      shown(settings.getByTestId('invoice-payments-warning-sandbox_in_production')),
    ).resolves.toContain('Test mode in production');
  }, 120_000);
});
