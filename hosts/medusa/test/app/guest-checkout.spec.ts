import { startSandbox, type SandboxServer } from 'nestjs-invoice-payments/sandbox';
import { GuestCheckout, MARIA } from './guest';
import { freePort, MedusaApp, until } from './medusa-app';
import { CPF, MedusaStore } from './store';

/*
 * A guest (no account: a cart with an e-mail, a name only on its addresses, the CPF in the session's data) pays in the
 * real Medusa app through the starter storefront's calls; the plugin hands the provider the cart's name and e-mail.
 * The card, through the component's form and the service's script, is in storefront-component.spec.ts.
 */
/** The store's "what now" page (`checkout.orderUrlTemplate`): the invoice's `payment.order_url` and the view's. */
const ORDER_URL_TEMPLATE = 'https://loja.example/pedido/{order_id}';
let sandbox: SandboxServer;
let app: MedusaApp;
let store: MedusaStore;
let guest: GuestCheckout;

beforeAll(async () => {
  sandbox = await startSandbox({ webhookRetry: { attempts: 2, baseDelayMs: 50 } });
  app = new MedusaApp(await freePort(), sandbox.url);
  // The store's own due days (3): a PIX stays hours from its expiry at whatever hour this runs; the sandbox's overdue
  // control moves the due day into the past itself.
  app.env.INVOICE_ORDER_URL_TEMPLATE = ORDER_URL_TEMPLATE;
  await app.prepare();
  await app.start();
  store = new MedusaStore(app.url);
  await store.setUp({ guest: true });
  guest = new GuestCheckout(store);
}, 1_800_000);

afterAll(async () => {
  await app?.stop();
  await app?.dropDatabase();
  await sandbox?.close();
}, 60_000);

async function paymentStatus(orderId: string): Promise<string> {
  return (await store.order(orderId)).payment_status;
}

/** The invoice at the service names the cart's payer; the session's data keeps neither the CPF nor the cart. */
function expectPayer(session: { data: Record<string, unknown> }) {
  const invoice = sandbox.controls.getInvoice(session.data.gatewayId as string)!;
  expect(invoice.client).toMatchObject({ name: 'Maria Souza', email: MARIA.email, document: CPF });
  expect(session.data).toMatchObject({ document: null, cart: null });
}

/** The shopper's status route of a cart, as the component calls it (the publishable key, no customer). */
function cartPayment(cartId: string, renewal = false): Promise<Response> {
  const path = `/store/invoice-payments/carts/${encodeURIComponent(cartId)}${renewal ? '/renewal' : ''}`;
  return store.fetch(renewal ? 'POST' : 'GET', path, undefined, 'store');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function viewOf(cartId: string): Promise<Record<string, any>> {
  const res = await cartPayment(cartId);
  expect(res.status).toBe(200);
  return res.json();
}

it("PIX: the invoice names the cart's payer; the status route shows it waiting, then paid; captured", async () => {
  const { cartId, order, session } = await guest.checkout({ method: 'pix' });
  expect(session.data.pix.payload).toBeTruthy();
  expectPayer(session);
  expect(await viewOf(cartId)).toMatchObject({
    method: 'pix',
    state: 'waiting',
    amount: '134.80',
    currency: 'BRL',
    pix: { payload: session.data.pix.payload, image: expect.stringMatching(/^http/) },
    billet: null,
    card: null,
    renewable: false,
    orderUrl: ORDER_URL_TEMPLATE.replace('{order_id}', session.id),
  });
  // The same page as the invoice's at the service.
  expect(sandbox.controls.getInvoice(session.data.gatewayId)!.orderUrl).toBe((await viewOf(cartId)).orderUrl);
  // Not close to expiring: no new code yet.
  expect((await cartPayment(cartId, true)).status).toBe(409);
  await sandbox.controls.pay(session.data.gatewayId);
  await until(async () => (await viewOf(cartId)).state === 'paid', 60_000, 'the status route says paid');
  await until(async () => (await paymentStatus(order.id)) === 'captured', 60_000, 'PIX captured');
}, 180_000);

it('an overdue PIX: the status route says expired and offers a new code; the renewal answers the view', async () => {
  const { cartId, session } = await guest.checkout({ method: 'pix' });
  await sandbox.controls.overdue(session.data.gatewayId);
  await until(
    async () => (await viewOf(cartId)).state === 'expired',
    60_000,
    'the status route says expired',
  );
  expect(await viewOf(cartId)).toMatchObject({ method: 'pix', renewable: true });
  const renewed = await cartPayment(cartId, true);
  expect(renewed.status).toBe(200);
  expect(await renewed.json()).toMatchObject({
    method: 'pix',
    state: 'waiting',
    pix: { payload: expect.any(String) },
    orderUrl: ORDER_URL_TEMPLATE.replace('{order_id}', session.id),
  });
}, 180_000);

it('the status route: 404 for a cart without our session and for an unknown cart, 400 for a bad id', async () => {
  const other = await guest.cart();
  expect((await cartPayment(other)).status).toBe(404);
  expect((await cartPayment('cart_01JZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
  const bad = await cartPayment('x'.repeat(65));
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain('cart_id');
}, 60_000);

it('the status route counts requests per cart: past the limit, 429 with Retry-After', async () => {
  const cartId = 'cart_01JRATELIMITEDRATELIMITED0';
  const statuses: number[] = [];
  for (let i = 0; i < 120; i += 1) statuses.push((await cartPayment(cartId)).status);
  expect(statuses.every((s) => s === 404)).toBe(true);
  const limited = await cartPayment(cartId);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
}, 120_000);

it('bank slip: the line is given, and shown by the status route; paid → captured', async () => {
  const { cartId, order, session } = await guest.checkout({ method: 'billet' });
  expect(session.data.billet.line).toBeTruthy();
  expectPayer(session);
  expect(await viewOf(cartId)).toMatchObject({
    method: 'billet',
    state: 'waiting',
    billet: { line: session.data.billet.line, dueAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
  });
  await sandbox.controls.pay(session.data.gatewayId);
  await until(async () => (await paymentStatus(order.id)) === 'captured', 60_000, 'bank slip captured');
}, 180_000);

it("the storefront's name in data is used, and a bad one is a 400 naming the field", async () => {
  const cartId = await guest.cart();
  const { payment_collection } = await store.call(
    'POST',
    '/store/payment-collections',
    { cart_id: cartId },
    'store',
  );
  const path = `/store/payment-collections/${payment_collection.id}/payment-sessions`;
  const refused = await store.fetch(
    'POST',
    path,
    {
      provider_id: 'pp_invoice-payments_br',
      data: { method: 'pix', document: CPF, first_name: 'M'.repeat(201) },
    },
    'store',
  );
  expect(refused.status).toBe(400);
  expect(await refused.text()).toContain('data.first_name');
  const session = await guest.pay(cartId, { method: 'pix', first_name: 'Maria', last_name: 'S. Lima' });
  expect(sandbox.controls.getInvoice(session.data.gatewayId)!.client.name).toBe('Maria S. Lima');
}, 120_000);
