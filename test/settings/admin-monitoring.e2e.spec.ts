import { randomUUID } from 'node:crypto';
import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import { InvoicePaymentsEvents, InvoiceRecord, type InvoicePaymentsAlert } from '../../src/index';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, waitFor } from '../checkout/support';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  adminAuth,
  AdminApp,
  newKey,
  openAdminDatabase,
  startAdminApp,
  ADMIN_PATH,
  pointWebhooksAtApp,
} from './support';

const A = ADMIN_PATH;

/** What the admin page reads and does beyond settings: inbox, outbox, alerts, history; and the page itself. */
describeEachDatabase('admin API: monitoring and the admin page', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;

  beforeAll(async () => {
    sandbox = await startSandbox();
    db = await openAdminDatabase(kind);
    app = await startAdminApp(db, sandbox, { admin: { encryption: { keys: { k1: newKey() } } } });
    await pointWebhooksAtApp(app);
  });
  afterAll(async () => {
    await app.close();
    await sandbox.close();
    await db.destroy();
  });

  const get = (path: string) => app.http().get(`${A}${path}`).set(adminAuth);
  const post = (path: string) => app.http().post(`${A}${path}`).set(adminAuth);
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  async function paidInvoice() {
    const order = makeOrder();
    const out = await app.provider.initiatePayment(checkout(order, 'pix'));
    await sandbox.controls.pay(out.data.gatewayId as string);
    await waitFor(async () => (await record(out.id)).statusCode === 5, 10_000, 'paid by webhook');
    return record(out.id);
  }
  /** An inbox entry as the processor leaves one it gave up on. */
  async function deadEntry(rec: InvoiceRecord | null, attempts: number): Promise<WebhookInboxEntry> {
    const payload = rec ? sandbox.controls.renderInvoice(rec.gatewayId as string) : { event: 'x' };
    const entry = Object.assign(new WebhookInboxEntry(), {
      id: randomUUID(),
      dedupeKey: `delivery:${randomUUID()}`,
      event: 'invoice.update',
      deliveryId: null,
      webhookId: 'default',
      gatewayId: rec?.gatewayId ?? null,
      referrer: null,
      statusCode: rec ? 5 : null,
      sentAt: null,
      payload: JSON.stringify(payload),
      state: 'dead',
      attempts,
      nextAttemptAt: null,
      lockedUntil: null,
      lastError: rec ? 'gave up after 20 attempts: database unavailable' : 'body: no invoice',
      outcome: null,
      invoiceRecordId: null,
      receivedAt: new Date(Date.now() - 60_000),
      processedAt: new Date(),
    });
    await db.dataSource.getRepository(WebhookInboxEntry).insert(entry);
    return entry;
  }

  it('serves the page and its files without the key, with a strict CSP; the API still needs the key', async () => {
    await app.http().get(A).expect(308).expect('Location', `${A}/`);
    const page = await app.http().get(`${A}/`).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.text).toContain('name="invoice-payments-auth" content="key"');
    expect(page.text).not.toMatch(/<script>|style="/);
    const script = await app.http().get(`${A}/assets/app.js`).expect(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.text).not.toContain('innerHTML');
    await app.http().get(`${A}/assets/..%2Fassets.ts`).expect(404);
    await app.http().get(`${A}/assets/nothing.js`).expect(404);
    await app.http().get(`${A}/webhooks/inbox`).expect(401);
    await app.http().get(`${A}/alerts`).expect(401);
  });

  it('keeps every alert raised on the bus, lists the open ones and acknowledges them', async () => {
    const alert: InvoicePaymentsAlert = {
      kind: 'amount_mismatch',
      orderId: 'order-alert-1',
      invoiceRecordId: null,
      message: 'gross 10.00 differs from the order total 12.00',
    };
    app.app.get(EventEmitter2).emit(InvoicePaymentsEvents.Alert, alert);
    const open = await waitFor(
      async () => {
        const res = await get('/alerts?open=true&kind=amount_mismatch').expect(200);
        return res.body.items.length === 1;
      },
      5_000,
      'the alert stored',
    ).then(() => get('/alerts?open=true&kind=amount_mismatch'));
    expect(open.body.items[0]).toMatchObject({ ...alert, acknowledgedAt: null });
    const id = open.body.items[0].id;
    const acked = await post(`/alerts/${id}/acknowledge`).expect(200);
    expect(acked.body.acknowledgedAt).toEqual(expect.any(String));
    expect((await get('/alerts?open=true&kind=amount_mismatch').expect(200)).body.items).toEqual([]);
    expect(
      (await get('/alerts?open=false').expect(200)).body.items.map((a: { id: string }) => a.id),
    ).toContain(id);
    await post(`/alerts/${randomUUID()}/acknowledge`).expect(404);
  });

  it('lists dead and pending deliveries; a retry processes a dead one again and applies it', async () => {
    const rec = await paidInvoice();
    const dead = await deadEntry(rec, 20);
    const listed = await get('/webhooks/inbox').expect(200);
    const view = listed.body.items.find((e: { id: string }) => e.id === dead.id);
    expect(view).toMatchObject({ state: 'dead', attempts: 20, retryable: true, lastError: dead.lastError });
    expect(view).not.toHaveProperty('payload');

    const retried = await post(`/webhooks/inbox/${dead.id}/retry`).expect(200);
    expect(retried.body.state).toBe('pending');
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    await waitFor(
      async () => (await inbox.findOneByOrFail({ id: dead.id })).state === 'processed',
      10_000,
      'processed',
    );
    expect(await inbox.findOneByOrFail({ id: dead.id })).toMatchObject({
      attempts: 21,
      invoiceRecordId: rec.id,
    });
    await post(`/webhooks/inbox/${dead.id}/retry`).expect(409);
  });

  it('refuses to retry a delivery that was unreadable when it arrived, and an unknown one', async () => {
    const unreadable = await deadEntry(null, 0);
    const listed = await get('/webhooks/inbox?state=dead').expect(200);
    expect(listed.body.items.find((e: { id: string }) => e.id === unreadable.id).retryable).toBe(false);
    const res = await post(`/webhooks/inbox/${unreadable.id}/retry`).expect(409);
    expect(res.body.message).toMatch(/unreadable when it arrived/);
    await post(`/webhooks/inbox/${randomUUID()}/retry`).expect(404);
  });

  it('lists failed tracking codes and posts one again on retry', async () => {
    const rec = await paidInvoice();
    const now = new Date();
    const row = Object.assign(new TrackingOutbox(), {
      id: randomUUID(),
      orderId: rec.orderId,
      code: 'QB123456789BR',
      carrier: 'Correios',
      url: null,
      invoiceRecordId: rec.id,
      gatewayInvoiceId: rec.gatewayInvoiceId as string,
      status: 'failed',
      attempts: 8,
      nextAttemptAt: now,
      lockedUntil: null,
      lockedBy: null,
      lastError: 'service unavailable',
      recordedAt: now,
      sentAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await db.dataSource.getRepository(TrackingOutbox).insert(row);
    const listed = await get('/tracking/outbox?status=failed').expect(200);
    expect(listed.body.items.find((o: { id: string }) => o.id === row.id)).toMatchObject({
      code: 'QB123456789BR',
      status: 'failed',
      lastError: 'service unavailable',
      retryable: true,
    });
    await post(`/tracking/outbox/${row.id}/retry`).expect(200);
    const outbox = db.dataSource.getRepository(TrackingOutbox);
    await waitFor(
      async () => (await outbox.findOneByOrFail({ id: row.id })).status === 'sent',
      10_000,
      'sent',
    );
    expect(sandbox.controls.getInvoice(rec.gatewayId as string)?.tracking?.code).toBe('QB123456789BR');
    await post(`/tracking/outbox/${row.id}/retry`).expect(409);
  });

  it("shows an invoice's status history and filters the list by method, creation state and dates", async () => {
    const rec = await paidInvoice();
    const history = await get(`/invoices/${rec.id}/history`).expect(200);
    expect(history.body.map((h: { toCode: number }) => h.toCode)).toEqual(expect.arrayContaining([1, 5]));
    expect(history.body.find((h: { toCode: number }) => h.toCode === 5)).toMatchObject({
      toName: 'Paid',
      applied: true,
    });
    await get(`/invoices/${randomUUID()}/history`).expect(404);

    const one = await get(`/invoices?orderId=${rec.orderId}&method=pix&creationState=created`).expect(200);
    expect(one.body.items.map((i: { id: string }) => i.id)).toEqual([rec.id]);
    expect(one.body.items[0].pixPayload).toMatch(/^000201/);
    expect((await get(`/invoices?orderId=${rec.orderId}&method=card`).expect(200)).body.total).toBe(0);
    const created = rec.createdAt.getTime();
    const window = (from: number, before: number) =>
      get(
        `/invoices?orderId=${rec.orderId}&createdFrom=${new Date(from).toISOString()}&createdBefore=${new Date(before).toISOString()}`,
      );
    expect((await window(created - 1000, created + 1000).expect(200)).body.total).toBe(1);
    expect((await window(created + 1, created + 1000).expect(200)).body.total).toBe(0);
    expect((await get('/invoices?creationState=unknown').expect(200)).body.items).toEqual([]);
  });

  it('refuses bad query parameters with a 400 naming each one', async () => {
    const cases: Array<[string, string]> = [
      ['/webhooks/inbox?state=lost', 'state'],
      ['/webhooks/inbox?limit=101', 'limit'],
      ['/tracking/outbox?status=x', 'status'],
      ['/tracking/outbox?page=0', 'page'],
      ['/alerts?open=maybe', 'open'],
      ['/alerts?kind=DROP%20TABLE', 'kind'],
      ['/invoices?method=boleto', 'method'],
      ['/invoices?creationState=lost', 'creationState'],
      ['/invoices?createdFrom=yesterday', 'createdFrom'],
      ['/invoices?createdBefore=2026-13-01T00:00:00Z', 'createdBefore'],
      ['/webhooks/inbox?extra=1', 'extra'],
    ];
    for (const [path, field] of cases) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
  });
});

describeEachDatabase('admin page switched off', (kind) => {
  it('is not served with admin.ui false; the API is', async () => {
    const sandbox = await startSandbox();
    const db = await openAdminDatabase(kind);
    const app = await startAdminApp(db, sandbox, { admin: { ui: false } });
    try {
      // Without the page, its paths are like any other path under the prefix: 401 without a key, 404 with one.
      await request(app.url).get(`${A}/`).expect(401);
      await request(app.url).get(`${A}/assets/app.js`).expect(401);
      await app.http().get(`${A}/assets/app.js`).set(adminAuth).expect(404);
      await app.http().get(`${A}/alerts`).set(adminAuth).expect(200);
    } finally {
      await app.close();
      await sandbox.close();
      await db.destroy();
    }
  });
});
