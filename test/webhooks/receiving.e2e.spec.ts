import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { resolveWebhooksOptions } from '../../src/options/webhooks.options';
import { LOOKUP_BURST } from '../../src/webhooks/invoice-lookup';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { insertInvoiceRecord } from '../core/fixtures';
import {
  closeDeliveryScene,
  createSandboxInvoice,
  openDeliveryScene,
  postDelivery,
  openWebhooksDatabase,
  ourReferrer,
  startWebhookApp,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

/** What `createSandboxInvoice` charges (2 × 10.50): the record must be for the amount the invoice is for. */
const SANDBOX_INVOICE_CENTS = 2_100;

describeEachDatabase('webhooks: receiving', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  const validationCalls: string[] = [];
  const lookups: string[] = [];
  let invoice: WireInvoiceCurrent;
  let serviceToken: string;

  beforeAll(async () => {
    ({ db, sandbox, app, invoice, serviceToken } = await openDeliveryScene(kind, {
      log: (line) => {
        if (line.startsWith('OPTIONS /webhooks')) validationCalls.push(line);
        if (line.startsWith('GET /invoices')) lookups.push(line);
      },
    }));
  });
  afterAll(() => closeDeliveryScene({ db, sandbox, app }));

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const body = (overrides: Record<string, unknown> = {}) => ({
    event: 'invoice.update',
    delivery_id: randomUUID(),
    webhook: 'default',
    sent_at: '2026-11-21 10:00:00',
    invoice,
    ...overrides,
  });
  const post = (payload: unknown, lines: string[] = ['default', tokenLine('', serviceToken)]) =>
    postDelivery(app.url, '/webhooks/invoice-payments', payload, lines);

  it('accepts a valid delivery, stores it before answering and applies it', async () => {
    const rec = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ gatewayId: invoice.id });
    const delivery = body();
    const res = await post(delivery);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, duplicate: false, state: 'pending' });
    const stored = await inbox().findOneByOrFail({ id: res.body.id });
    expect(stored).toMatchObject({
      dedupeKey: `delivery:${delivery.delivery_id}`,
      event: 'invoice.update',
      webhookId: 'default',
      gatewayId: invoice.id,
      statusCode: 1,
    });
    await app.settle();
    expect((await inbox().findOneByOrFail({ id: res.body.id })).state).toBe('processed');
    expect(
      (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode,
    ).toBe(1);
    expect(app.port.changes.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code)).toEqual([
      1,
    ]);
  });

  it('reads both Webhook header lines whatever their order', async () => {
    const token = tokenLine('', serviceToken);
    for (const lines of [
      ['default', token],
      [token, 'default'],
    ]) {
      const res = await post(body(), lines);
      expect(res.status).toBe(200);
      expect((await inbox().findOneByOrFail({ id: res.body.id })).webhookId).toBe('default');
    }
  });

  it('takes a delivery under a forged service token as a trigger: no validation call, the service says what applies', async () => {
    validationCalls.length = 0;
    const forgedPaid = { ...invoice, status: { ...invoice.status, code: 5, text: 'paid' } };
    const res = await post(body({ invoice: forgedPaid }), ['default', tokenLine('', 'forged-service-token')]);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('forged-service-token');
    await app.settle();
    expect(validationCalls).toHaveLength(0);
    expect((await inbox().findOneByOrFail({ id: res.body.id })).state).toBe('processed');
    // The service says the invoice is still awaiting payment: the forged "paid" moved nothing.
    expect(
      (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ gatewayId: invoice.id }))
        .statusCode,
    ).toBe(1);
  });

  it('answers 401 without a token line or with a token without a service part', async () => {
    const before = await inbox().count();
    expect((await post(body(), ['default'])).status).toBe(401);
    expect((await post(body(), ['default', tokenLine('merchant', '')])).status).toBe(401);
    expect((await post(body(), [])).status).toBe(401);
    expect(await inbox().count()).toBe(before);
  });

  it('a burst of deliveries naming one invoice costs no validation and at most a burst of lookups', async () => {
    validationCalls.length = 0;
    const fresh = await startWebhookApp(db, sandbox, { path: 'burst/hook' });
    try {
      const before = lookups.length;
      const startedAt = Date.now();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          postDelivery(fresh.url, '/burst/hook', body(), ['default', tokenLine('', serviceToken)]),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      // Two app instances share this inbox (the suite's and this one): each paces its own lookups.
      await waitFor(
        async () => (await inbox().countBy({ state: 'pending' })) === 0,
        5000,
        'the burst processed',
      );
      expect(validationCalls).toHaveLength(0);
      expect(lookups.length - before).toBeGreaterThanOrEqual(1);
      // Each instance: its burst, then one a lookup window for as long as the burst took (a busy machine takes longer).
      const { lookupWindowMs } = resolveWebhooksOptions({});
      const windows = Math.ceil((Date.now() - startedAt) / lookupWindowMs);
      expect(lookups.length - before).toBeLessThanOrEqual(2 * (LOOKUP_BURST + windows));
    } finally {
      await fresh.close();
    }
  });

  it('takes deliveries while the service cannot validate tokens: the route never asks it', async () => {
    const fresh = await startWebhookApp(db, sandbox, { path: 'unreachable/hook' });
    sandbox.controls.addFault({ method: 'OPTIONS', path: '/webhooks', status: 503 });
    try {
      const res = await postDelivery(fresh.url, '/unreachable/hook', body(), [
        'default',
        tokenLine('', serviceToken),
      ]);
      expect(res.status).toBe(200);
      expect(res.headers['retry-after']).toBeUndefined();
    } finally {
      sandbox.controls.clearFaults();
      await fresh.close();
    }
  });

  it('recognizes the same delivery sent 10 times: one entry, one transition, one notification', async () => {
    const created = await createSandboxInvoice(app.gateway);
    await sandbox.controls.pay(created.invoice.id);
    const paid = { ...sandbox.controls.renderInvoice(created.invoice.id)! };
    const rec = await insertInvoiceRecord(db.dataSource, {
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: paid.id,
      referrer: paid.referrer,
      statusCode: null,
    });
    const delivery = body({ invoice: paid });
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(delivery)));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(responses.filter((r) => !r.body.duplicate && !r.body.joined)).toHaveLength(1);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    await app.settle();
    expect(await inbox().countBy({ deliveryId: delivery.delivery_id })).toBe(1);
    expect(app.port.changes.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code)).toEqual([
      5,
    ]);
    expect(app.busChanges.filter((c) => c.invoiceRecordId === rec.id)).toHaveLength(1);
  });

  it('keys a delivery without delivery_id by invoice, status, event and sent_at', async () => {
    // An invoice of its own: the suite's is looked up often enough that a delivery for it may join a waiting entry.
    const created = await createSandboxInvoice(app.gateway);
    const own = sandbox.controls.renderInvoice(created.invoice.id)!;
    await insertInvoiceRecord(db.dataSource, {
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: own.id,
      referrer: own.referrer,
    });
    const delivery = body({ invoice: own, delivery_id: undefined, sent_at: '2026-11-21 11:11:11' });
    const first = await post(delivery);
    const again = await post(delivery);
    expect(first.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    expect((await inbox().findOneByOrFail({ id: first.body.id })).dedupeKey).toMatch(/^hash:/);
  });

  it('answers 400 to malformed JSON (the host parser) and to a body that is not an object, before anything else', async () => {
    const malformed = await post('{"event": "invoice.update", "invoice": ');
    expect(malformed.status).toBe(400);
    const array = await post('[1,2,3]');
    expect(array.status).toBe(400);
    expect(array.body.message).toBe('body: must be a JSON object');
  });

  it("takes a body within the host parser's limit (Express: 100 KB) and leaves a larger one to its 413", async () => {
    const big = await post(body({ padding: 'x'.repeat(90 * 1024) }));
    expect(big.status).toBe(200);
    const before = await inbox().count();
    const tooBig = await post(body({ padding: 'x'.repeat(120 * 1024) }));
    expect(tooBig.status).toBe(413);
    expect(await inbox().count()).toBe(before);
  });

  it('refuses a body nested deeper than 64 levels or past its routing fields bounds with 400 naming them', async () => {
    let nested: object = {};
    for (let i = 0; i < 70; i++) nested = { a: nested };
    const deep = await post(body({ nested }));
    expect([deep.status, deep.body.message]).toEqual([400, 'body: nested deeper than 64 levels']);
    const longEvent = await post(body({ event: 'e'.repeat(65) }));
    expect([longEvent.status, longEvent.body.message]).toEqual([
      400,
      'body.event: longer than 64 characters',
    ]);
  });

  it('honours a configured body limit and route', async () => {
    const small = await startWebhookApp(db, sandbox, { path: '/hooks/pay/', bodyLimitBytes: 4096 });
    try {
      const send = (payload: unknown) =>
        postDelivery(small.url, '/hooks/pay', payload, ['default', tokenLine('', serviceToken)]);
      expect((await send(body())).status).toBe(200);
      expect((await send(body({ padding: 'x'.repeat(5000) }))).status).toBe(413);
      expect((await request(small.url).post('/webhooks/invoice-payments').send({})).status).toBe(404);
    } finally {
      await small.close();
    }
  });

  it('refuses an unreadable invoice with 422 naming the field, storing nothing', async () => {
    const before = await inbox().count();
    const broken = { ...invoice, status: { text: 'paid' } };
    const res = await post(body({ invoice: broken }));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/status/);
    expect(await inbox().count()).toBe(before);
  });

  it('acknowledges a synthetic test delivery without an invoice (200), storing nothing', async () => {
    const before = await inbox().count();
    const res = await post(body({ test: true, invoice: null }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, ignored: 'test_delivery', message: expect.any(String) });
    expect(await inbox().count()).toBe(before);
  });

  it('still refuses a delivery naming no invoice that is no test (422), storing nothing', async () => {
    const before = await inbox().count();
    const res = await post(body({ invoice: null }));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/no invoice/);
    expect(await inbox().count()).toBe(before);
  });
});

describeEachDatabase('webhooks: merchant part of the token', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let strict: WebhookApp;
  let lenient: WebhookApp;
  let hookToken: string;
  let defaultToken: string;
  let invoice: WireInvoiceCurrent;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
    strict = await startWebhookApp(db, sandbox, {
      path: 'strict/hook',
      merchantToken: 'shop-secret',
      allowEmptyMerchantPart: false,
    });
    lenient = await startWebhookApp(db, sandbox, { path: 'lenient/hook', merchantToken: 'shop-secret' });
    hookToken = sandbox.controls.registerWebhook({
      url: strict.webhookUrl,
      merchant_token: 'shop-secret',
    }).token;
    defaultToken = sandbox.controls.webhooks()[0].token;
    // As the checkout does: the record (by referrer) is written before the invoice is created.
    const referrer = ourReferrer();
    await insertInvoiceRecord(db.dataSource, {
      orderId: referrer, // the payment id `createSandboxInvoice` sends
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: null,
      creationState: 'pending', // as the checkout writes it before asking
      referrer,
    });
    const created = await createSandboxInvoice(lenient.gateway, {
      webhook: `${lenient.webhookUrl}`,
      referrer,
    });
    invoice = sandbox.controls.renderInvoice(created.invoice.id)!;
  });
  afterAll(async () => {
    await strict.close();
    await lenient.close();
    await sandbox.close();
    await db.destroy();
  });

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const send = (target: WebhookApp, lines: string[]) =>
    postDelivery(
      target.url,
      new URL(target.webhookUrl).pathname,
      {
        event: 'invoice.update',
        delivery_id: randomUUID(),
        invoice,
      },
      lines,
    );

  it('accepts real deliveries of a hand-registered webhook whose merchant part matches', async () => {
    const referrer = ourReferrer();
    await insertInvoiceRecord(db.dataSource, {
      orderId: referrer, // the payment id `createSandboxInvoice` sends
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: null,
      creationState: 'pending', // as the checkout writes it before asking
      referrer,
    });
    await createSandboxInvoice(strict.gateway, { referrer }); // no payment.webhook: goes to the registered webhook
    await sandbox.controls.waitForDeliveries();
    const toStrict = sandbox.deliveries().filter((d) => d.url === strict.webhookUrl);
    expect(toStrict.length).toBeGreaterThan(0);
    expect(toStrict.every((d) => d.state === 'delivered' && d.attempts[0].status === 200)).toBe(true);
    const stored = await inbox().findOneByOrFail({ deliveryId: toStrict[0].deliveryId });
    expect(stored.webhookId).toMatch(/^wh_/);
  });

  it('answers 401 to a wrong merchant part, even with a valid service token', async () => {
    const before = await inbox().count();
    const res = await send(strict, ['wh_0001', tokenLine('not-the-secret', hookToken)]);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('the merchant part of the token does not match');
    expect(JSON.stringify(res.body)).not.toContain('shop-secret');
    expect((await send(lenient, ['wh_0001', tokenLine('shop-secre', hookToken)])).status).toBe(401);
    expect(await inbox().count()).toBe(before);
  });

  it('answers 401 to an empty merchant part when the webhook must carry one', async () => {
    const res = await send(strict, ['default', tokenLine('', defaultToken)]);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('the token has an empty merchant part');
  });

  it('accepts an empty merchant part by default: payment.webhook deliveries come from the default webhook', async () => {
    expect((await send(lenient, ['default', tokenLine('', defaultToken)])).status).toBe(200);
    await sandbox.controls.waitForDeliveries();
    const real = sandbox.deliveries().filter((d) => d.url === lenient.webhookUrl);
    expect(real.length).toBeGreaterThan(0);
    expect(real.every((d) => d.webhookId === 'default' && d.attempts.at(-1)?.status === 200)).toBe(true);
  });

  it('reads the two lines when a proxy joined them into one', async () => {
    expect((await send(strict, [`wh_0001, ${tokenLine('shop-secret', hookToken)}`])).status).toBe(200);
  });
});
