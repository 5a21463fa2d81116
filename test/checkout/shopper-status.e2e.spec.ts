import { randomBytes } from 'node:crypto';
import { CLOCK } from '../../src/domain/clock';
import { addDays, dayEndIn, todayIn } from '../../src/domain/text-and-days';
import { RENEWABLE_BEFORE_MS, type ShopperPaymentView } from '../../src/checkout/shopper-view';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { SAO_PAULO_NOON, ShiftedClock } from '../support/clock';
import { startCountingProxy, type CountingProxy } from '../support/counting-proxy';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { AdminApp, openAdminDatabase, startAdminApp } from '../settings/support';
import { checkout, makeOrder, waitFor } from './support';

const ZONE = 'America/Sao_Paulo';
/** Polls the route as a storefront would, within the reads a token may make. */
const POLL_MS = 250;
const PATH = '/invoice-payments/payments';

/**
 * The shopper's status route of a Nest host over real HTTP: the token `initiatePayment` hands out reads the store's
 * record; a PIX paid at the sandbox shows paid once its webhook is applied; an expired PIX gets a new code once.
 */
describeEachDatabase('the shopper status route (Nest host)', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let proxy: CountingProxy;
  let shop: AdminApp;
  // The store and the service read one clock, started at noon: a PIX due today is then hours from its expiry
  // whatever the hour CI runs at (in its last 10 minutes it would already be renewable). Only the last tests move
  // it, forward, to the edges of the day.
  const clock = new ShiftedClock(SAO_PAULO_NOON);
  const today = () => todayIn(ZONE, clock.date());

  beforeAll(async () => {
    db = await openAdminDatabase(kind);
    sandbox = await startSandbox({ clock: () => clock.date() });
    proxy = await startCountingProxy(sandbox.url);
    // Due today: a renewal then visibly moves the day (to tomorrow at least). A lost write could land for 1.5 s.
    shop = await startAdminApp(db, sandbox, {
      baseUrl: proxy.url,
      checkout: {
        dueDays: 0,
        lateCreationMarginMs: 500,
        orderUrlTemplate: 'https://shop.example/orders/{order_id}?ref={reference}',
      },
      timeouts: { defaultMs: 1_000 },
      overrides: [[CLOCK, clock]],
    });
    sandbox.controls.registerWebhook({ url: shop.webhookUrl });
  });
  afterAll(async () => {
    await shop?.close();
    await proxy?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  async function pix() {
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
    return { order, out, token: out.data.statusToken! };
  }
  const view = (token: string) => shop.http().get(`${PATH}/${token}`);
  const renew = (token: string) => shop.http().post(`${PATH}/${token}/renewal`);
  const patches = () => proxy.count((method, path) => method === 'PATCH' && path === '/invoices');

  it('answers the view of the token handed out by initiatePayment, from the record', async () => {
    const { order, out, token } = await pix();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await view(token).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.body as ShopperPaymentView;
    expect(body).toEqual({
      method: 'pix',
      state: 'waiting',
      amount: '119.90',
      currency: 'BRL',
      invoiceNumber: out.data.gatewayId,
      pix: {
        payload: out.data.pix?.payload,
        image: out.data.pix?.image,
        expiresAt: expect.any(String),
      },
      billet: null,
      card: null,
      renewable: false,
      orderUrl: `https://shop.example/orders/${order.id}?ref=${order.id}`,
    });
    // The same page the invoice names at the service.
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.orderUrl).toBe(body.orderUrl);
    // The PIX is due today: it expires when today ends in the store's zone.
    expect(out.data.dueDate).toBe(today());
    expect(todayIn(ZONE, new Date(Date.parse(body.pix!.expiresAt!) - 1))).toBe(today());
    expect(todayIn(ZONE, new Date(body.pix!.expiresAt!))).toBe(addDays(today(), 1));
    // No token is kept: the record holds its hash only.
    const [record] = await db.dataSource.query(
      'SELECT status_token_hash FROM invoice_payments_invoice WHERE id = $1'.replace(
        '$1',
        kind === 'postgres' ? '$1' : '?',
      ),
      [out.id],
    );
    expect(record.status_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).not.toContain(token);
  });

  it("reads the store's record only: many reads of the route make no call to the service", async () => {
    const { out, token } = await pix();
    // The invoice's own traffic first: its creation webhook is delivered and applied (which asks the service).
    await sandbox.controls.waitForDeliveries(10_000);
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    // Every stored delivery applied, this invoice's and the earlier tests' (a paced lookup of another invoice would
    // otherwise reach the service during the reads).
    await waitFor(
      async () => (await inbox.countBy({ state: 'pending' })) === 0,
      10_000,
      'every stored webhook applied',
      POLL_MS,
    );
    expect(await inbox.countBy({ gatewayId: out.data.gatewayId! })).toBeGreaterThan(0);
    const before = proxy.requests().length;
    for (let i = 0; i < 100; i += 1) await view(token).expect(200);
    // Named, so that a call that does reach the service says which it was.
    expect(proxy.requests().slice(before)).toEqual([]);
  });

  it('keeps the token a repeated initiatePayment replaced working; the one before that is gone', async () => {
    const { order, token: first } = await pix();
    const second = (await shop.provider.initiatePayment(checkout(order, 'pix'))).data.statusToken!;
    expect(second).not.toBe(first);
    await view(first).expect(200);
    await view(second).expect(200);
    const third = (await shop.provider.initiatePayment(checkout(order, 'pix'))).data.statusToken!;
    await view(third).expect(200);
    await view(second).expect(200);
    await view(first).expect(404);
  });

  it('shows a PIX paid at the sandbox as paid once its webhook is applied', async () => {
    const { out, token } = await pix();
    await sandbox.controls.pay(out.data.gatewayId!);
    await waitFor(
      async () => (await view(token)).body.state === 'paid',
      10_000,
      'the view shows paid',
      POLL_MS,
    );
    const paid = (await view(token).expect(200)).body as ShopperPaymentView;
    expect(paid).toMatchObject({ state: 'paid', renewable: false, amount: '119.90' });
  });

  it('answers 404 for a token no record holds, 400 naming `token` for a malformed one', async () => {
    const unknown = randomBytes(32).toString('base64url');
    const missing = await view(unknown).expect(404);
    const renewMissing = await renew(unknown).expect(404);
    expect(renewMissing.body).toEqual(missing.body);
    expect(JSON.stringify(missing.body)).not.toContain(unknown);
    for (const bad of ['short', 'a'.repeat(44), `${'a'.repeat(42)}%2F`, `${'a'.repeat(42)}%00`]) {
      const res = await view(bad).expect(400);
      expect(res.body.fields).toEqual({ token: [expect.any(String)] });
    }
    await renew('x'.repeat(300)).expect(400);
  });

  it('answers 429 with Retry-After past the reads a token may make per minute', async () => {
    const { token } = await pix();
    for (let i = 0; i < 120; i += 1) await view(token).expect(200);
    const limited = await view(token).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another payment's token has its own allowance.
    const other = await pix();
    await view(other.token).expect(200);
  });

  it('renews an expired PIX: the due date moves at the service, the view waits again with the new expiry', async () => {
    const { out, token } = await pix();
    await renew(token).expect(409); // not expired, nor about to: no new code is offered
    await sandbox.controls.overdue(out.data.gatewayId!);
    await waitFor(
      async () => (await view(token)).body.state === 'expired',
      10_000,
      'the view shows expired',
      POLL_MS,
    );
    expect((await view(token)).body.renewable).toBe(true);

    const before = patches();
    const res = await renew(token).expect(200);
    const renewed = res.body as ShopperPaymentView;
    const tomorrow = addDays(today(), 1);
    expect(patches()).toBe(before + 1);
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.dueDay).toBe(tomorrow);
    expect(renewed).toMatchObject({
      state: 'waiting',
      renewable: false,
      pix: { payload: out.data.pix?.payload },
    });
    expect(todayIn(ZONE, new Date(Date.parse(renewed.pix!.expiresAt!) - 1))).toBe(tomorrow);
  });

  it('answers 503 while a renewal whose answer was lost is unknown, and sends it once', async () => {
    const { out, token } = await pix();
    await sandbox.controls.overdue(out.data.gatewayId!);
    await waitFor(
      async () => (await view(token)).body.state === 'expired',
      10_000,
      'the view shows expired',
      POLL_MS,
    );
    // The due-date change takes effect at the service; its answer does not come back.
    sandbox.controls.addFault({
      method: 'PATCH',
      path: '/invoices',
      times: 1,
      afterProcessing: true,
      dropConnection: true,
    });
    const before = patches();
    const lost = await renew(token).expect(503);
    const retryAfterMs = Number(lost.headers['retry-after']) * 1000;
    expect(retryAfterMs).toBeGreaterThanOrEqual(1000);
    const again = await renew(token).expect(503);
    expect(again.body.message).toMatch(/being confirmed/);
    expect(patches()).toBe(before + 1);
    expect((await view(token)).body).toMatchObject({ state: 'expired' });

    // Past its Retry-After the lost request can no longer land: the store asks the service, which moved the day.
    clock.advance(retryAfterMs);
    const landed = await renew(token).expect(200);
    const tomorrow = addDays(today(), 1);
    const body = landed.body as ShopperPaymentView;
    expect(body.state).toBe('waiting');
    expect(todayIn(ZONE, new Date(Date.parse(body.pix!.expiresAt!) - 1))).toBe(tomorrow);
    expect(patches()).toBe(before + 1);
  });

  it('answers renewal_not_offered when the PIX was paid at the service before the store heard of it', async () => {
    const { out, token } = await pix();
    await sandbox.controls.overdue(out.data.gatewayId!);
    await waitFor(
      async () => (await view(token)).body.state === 'expired',
      10_000,
      'the view shows expired',
      POLL_MS,
    );
    // Paid while its webhook is on its way: the store still offers a new code, the service refuses the new day.
    sandbox.controls.setWebhookFaults({ hold: true });
    try {
      await sandbox.controls.pay(out.data.gatewayId!);
      const refused = await renew(token).expect(409);
      expect(refused.body).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: 'This payment cannot get a new code: it is a pix payment, paid',
      });
      // The store read the invoice back: the view says paid before the webhook arrives.
      expect((await view(token)).body).toMatchObject({ state: 'paid', renewable: false });
    } finally {
      sandbox.controls.setWebhookFaults({});
      sandbox.controls.releaseWebhooks('fifo');
    }
  });

  // The edges of the due day, on the clock the store and the service share (set, not waited for).
  it('offers a new code only in the last 10 minutes of the due day; the renewed PIX outlives midnight', async () => {
    const { out, token } = await pix();
    const ends = dayEndIn(today(), ZONE).getTime();
    clock.set(ends - RENEWABLE_BEFORE_MS - 60_000);
    expect((await view(token)).body).toMatchObject({ state: 'waiting', renewable: false });
    await renew(token).expect(409);

    clock.set(ends - RENEWABLE_BEFORE_MS + 60_000);
    expect((await view(token)).body).toMatchObject({ state: 'waiting', renewable: true });
    const tomorrow = addDays(today(), 1);
    const renewed = (await renew(token).expect(200)).body as ShopperPaymentView;
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.dueDay).toBe(tomorrow);
    expect(renewed).toMatchObject({ state: 'waiting', renewable: false });
    expect(renewed.pix!.expiresAt).toBe(dayEndIn(tomorrow, ZONE).toISOString());

    clock.set(ends + 60_000);
    expect((await view(token)).body).toMatchObject({ state: 'waiting', renewable: false });
  });

  it('shows a PIX not renewed as expired once its day ends, and renews it from the new day', async () => {
    const { out, token } = await pix();
    const dueDay = today();
    clock.set(dayEndIn(dueDay, ZONE).getTime() + 60_000);
    expect(today()).toBe(addDays(dueDay, 1));
    expect((await view(token)).body).toMatchObject({ state: 'expired', renewable: true });
    const renewed = (await renew(token).expect(200)).body as ShopperPaymentView;
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.dueDay).toBe(addDays(today(), 1));
    expect(renewed).toMatchObject({ state: 'waiting', renewable: false });
  });
});
