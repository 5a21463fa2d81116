import { addDays, todayIn } from '../../src/domain/text-and-days';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/index';
import { InvoiceRefund } from '../../src/refunds/refund.entity';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, waitFor } from '../checkout/support';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  adminAuth,
  AdminApp,
  newKey,
  openAdminDatabase,
  PUBLIC_BASE_URL,
  startAdminApp,
  ADMIN_PATH,
  pointWebhooksAtApp,
} from './support';

const FULL = 'tok_full_scopes_0000000000000001';
const LIMITED = 'tok_limited_scopes_000000000002';
const A = ADMIN_PATH;

/** The admin operations over HTTP, against the sandbox, on both databases. */
describeEachDatabase('admin API: operations', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;

  beforeAll(async () => {
    sandbox = await startSandbox({
      tokens: [
        { token: FULL, scopes: [...ALL_SCOPES] },
        { token: LIMITED, scopes: ['invoice.read', 'invoice.write', 'consumer.read'] },
      ],
    });
    db = await openAdminDatabase(kind);
    app = await startAdminApp(db, sandbox, {
      accessToken: FULL,
      admin: { encryption: { keys: { k1: newKey() } } },
    });
    // The store's public webhook URL is a runtime setting too: deliveries come back to this app.
    await pointWebhooksAtApp(app);
  });
  afterAll(async () => {
    await app.close();
    await sandbox.close();
    await db.destroy();
  });

  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const today = () => todayIn('America/Sao_Paulo', new Date());
  async function newInvoice(method: 'pix' | 'billet' = 'pix', orderId?: string) {
    const order = makeOrder(orderId ? { id: orderId, reference: orderId } : {});
    const out = await app.provider.initiatePayment(checkout(order, method));
    return { order, id: out.id, gatewayId: out.data.gatewayId as string };
  }
  async function paid(method: 'pix' | 'billet' = 'pix') {
    const inv = await newInvoice(method);
    await sandbox.controls.pay(inv.gatewayId);
    await waitFor(async () => (await record(inv.id)).statusCode === 5, 10_000, 'paid by webhook');
    return inv;
  }
  const setToken = (accessToken: string | null) =>
    app.http().put(`${A}/settings`).set(adminAuth).send({ accessToken }).expect(200);

  describe('credential check', () => {
    afterEach(async () => {
      await setToken(null);
      await app.http().put(`${A}/settings`).set(adminAuth).send({ baseUrl: null }).expect(200);
    });

    it('reports every operation ok for a token with every scope', async () => {
      const res = await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);
      expect(res.body).toMatchObject({ ok: true, mode: 'sandbox', baseUrl: sandbox.url });
      expect(res.body.scopes).toEqual(expect.arrayContaining([...ALL_SCOPES]));
      const results = Object.fromEntries(
        res.body.operations.map((o: { operation: string; result: string }) => [o.operation, o.result]),
      );
      expect(results).toEqual({
        credentialStatus: 'ok',
        listInvoices: 'ok',
        listConsumers: 'ok',
        listMediations: 'ok',
        listChargebacks: 'ok',
        createInvoice: 'ok',
        changeDueDate: 'ok',
        cancelInvoice: 'ok',
        addTrackingCode: 'ok',
        refundInvoice: 'ok',
      });
      expect(JSON.stringify(res.body)).not.toContain(FULL);
    });

    it('checks the saved token, and names each missing scope', async () => {
      await setToken(LIMITED);
      const res = await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);
      expect(res.body.ok).toBe(false);
      const byOp = Object.fromEntries(
        res.body.operations.map((o: { operation: string }) => [o.operation, o]),
      ) as Record<string, { result: string; scope: string; checkedBy: string }>;
      expect(byOp.listInvoices).toMatchObject({ result: 'ok', scope: 'invoice.read', checkedBy: 'call' });
      expect(byOp.listConsumers).toMatchObject({ result: 'ok', scope: 'consumer.read' });
      expect(byOp.listMediations).toMatchObject({
        result: 'missing_scope',
        scope: 'dispute.read',
        checkedBy: 'call',
      });
      expect(byOp.listChargebacks).toMatchObject({ result: 'missing_scope', scope: 'dispute.read' });
      expect(byOp.createInvoice).toMatchObject({ result: 'ok', scope: 'invoice.write', checkedBy: 'scopes' });
      expect(byOp.changeDueDate).toMatchObject({ result: 'missing_scope', scope: 'invoice.update' });
      expect(byOp.cancelInvoice).toMatchObject({ result: 'missing_scope', scope: 'invoice.update' });
      expect(byOp.addTrackingCode).toMatchObject({ result: 'missing_scope', scope: 'invoice.update' });
      expect(byOp.refundInvoice).toMatchObject({ result: 'missing_scope', scope: 'invoice.refund' });
    });

    it('reports unauthorized everywhere for a token the service does not know', async () => {
      await setToken('tok_unknown_to_the_service_77');
      const res = await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);
      expect(res.body.ok).toBe(false);
      expect(res.body.scopes).toBeNull();
      const results = new Set(res.body.operations.map((o: { result: string }) => o.result));
      expect([...results]).toEqual(['unauthorized']);
      expect(JSON.stringify(res.body)).not.toContain('tok_unknown_to_the_service_77');
    });

    it('reports error (not unauthorized) when the service cannot be reached', async () => {
      const closed = await startSandbox();
      const url = closed.url;
      await closed.close();
      await app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({ baseUrl: url, accessToken: 'sandbox-token' })
        .expect(200);
      const res = await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);
      expect(res.body.ok).toBe(false);
      expect(res.body.operations.every((o: { result: string }) => o.result === 'error')).toBe(true);
      expect(res.body.operations[0].message).toMatch(/credentialStatus/);
    });
  });

  describe('local invoices', () => {
    it('lists them paged, newest first, filtered by status and by order', async () => {
      const orderId = `order_list_${Date.now()}`;
      const first = await newInvoice('pix', orderId);
      await app.http().post(`${A}/invoices/${first.id}/cancel`).set(adminAuth).expect(200);
      await newInvoice('billet');
      const last = await newInvoice('pix');

      const page1 = await app.http().get(`${A}/invoices?limit=2`).set(adminAuth).expect(200);
      expect(page1.body).toMatchObject({ page: 1, limit: 2 });
      expect(page1.body.total).toBeGreaterThanOrEqual(3);
      expect(page1.body.pages).toBe(Math.ceil(page1.body.total / 2));
      expect(page1.body.items).toHaveLength(2);
      expect(page1.body.items[0].id).toBe(last.id);
      expect(page1.body.items[0]).toMatchObject({
        method: 'pix',
        statusCode: 1,
        statusName: 'Awaiting payment',
        orderPaymentStatus: 'awaiting',
        currency: 'BRL',
        amountCents: 11990,
      });
      expect(page1.body.items[0]).not.toHaveProperty('rawSnapshot');
      const page2 = await app.http().get(`${A}/invoices?limit=2&page=2`).set(adminAuth).expect(200);
      expect(page2.body.items.map((i: { id: string }) => i.id)).not.toContain(last.id);

      const canceled = await app.http().get(`${A}/invoices?status=6`).set(adminAuth).expect(200);
      expect(canceled.body.items.map((i: { id: string }) => i.id)).toContain(first.id);
      expect(canceled.body.items.every((i: { statusCode: number }) => i.statusCode === 6)).toBe(true);

      const byOrder = await app.http().get(`${A}/invoices`).query({ orderId }).set(adminAuth).expect(200);
      expect(byOrder.body).toMatchObject({ total: 1, items: [{ id: first.id, orderId, statusCode: 6 }] });

      const one = await app.http().get(`${A}/invoices/${last.id}`).set(adminAuth).expect(200);
      expect(one.body).toMatchObject({ id: last.id, gatewayId: last.gatewayId });
      await app.http().get(`${A}/invoices/no-such-id`).set(adminAuth).expect(404);
    });

    it('refuses bad paging and filters, naming them', async () => {
      const res = await app
        .http()
        .get(`${A}/invoices?limit=500&page=0&status=paid&sort=asc`)
        .set(adminAuth)
        .expect(400);
      expect(res.body.errors).toEqual({
        limit: ['limit must be at most 100'],
        page: ['page must be at least 1'],
        status: expect.arrayContaining(['status must be a status code (integer)']),
        sort: ['property sort should not exist'],
      });
    });
  });

  describe('due date', () => {
    it('moves the due date of an open PIX invoice at the service and locally', async () => {
      const inv = await newInvoice('pix');
      const day = addDays(today(), 9);
      const res = await app
        .http()
        .post(`${A}/invoices/${inv.id}/due-date`)
        .set(adminAuth)
        .send({ dueDate: day })
        .expect(200);
      expect(res.body).toMatchObject({ id: inv.id, dueDate: day, statusCode: 1 });
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.dueDay).toBe(day);
    });

    it('refuses a malformed or past day (400 naming dueDate) and a card invoice or paid invoice (409)', async () => {
      const inv = await newInvoice('pix');
      const before = sandbox.controls.getInvoice(inv.gatewayId)?.dueDay;
      const bad = await app
        .http()
        .post(`${A}/invoices/${inv.id}/due-date`)
        .set(adminAuth)
        .send({ dueDate: '2026-02-30' })
        .expect(400);
      expect(bad.body.errors).toEqual({ dueDate: ['dueDate must be a calendar day written YYYY-MM-DD'] });
      const past = await app
        .http()
        .post(`${A}/invoices/${inv.id}/due-date`)
        .set(adminAuth)
        .send({ dueDate: addDays(today(), -1) })
        .expect(400);
      expect(Object.keys(past.body.errors)).toEqual(['dueDate']);
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.dueDay).toBe(before);

      const p = await paid('pix');
      const conflict = await app
        .http()
        .post(`${A}/invoices/${p.id}/due-date`)
        .set(adminAuth)
        .send({ dueDate: addDays(today(), 5) })
        .expect(409);
      expect(conflict.body.message).toMatch(/changeDueDate is not allowed/);
      await app
        .http()
        .post(`${A}/invoices/nope/due-date`)
        .set(adminAuth)
        .send({ dueDate: addDays(today(), 5) })
        .expect(404);
    });
  });

  describe('cancel', () => {
    it('cancels an open invoice at the service, through the status path', async () => {
      const inv = await newInvoice('billet');
      const res = await app.http().post(`${A}/invoices/${inv.id}/cancel`).set(adminAuth).expect(200);
      expect(res.body).toMatchObject({ id: inv.id, statusCode: 6, orderPaymentStatus: 'canceled' });
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.statusCode).toBe(6);
      const history = await db.dataSource
        .getRepository(InvoiceStatusHistory)
        .find({ where: { invoiceRecordId: inv.id }, order: { createdAt: 'ASC' } });
      expect(history.map((h) => [h.toCode, h.source, h.applied])).toContainEqual([6, 'operation', true]);
    });
  });

  describe('refund', () => {
    it('refunds part of a paid PIX invoice, then refuses more than what remains (400 naming amountCents)', async () => {
      const inv = await paid('pix');
      const res = await app
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 1990 })
        .expect(200);
      expect(res.body).toMatchObject({
        statusCode: 8,
        refundedCents: 1990,
        orderPaymentStatus: 'partially_refunded',
      });
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.refunds).toHaveLength(1);

      const over = await app
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 10_000_000 })
        .expect(400);
      expect(Object.keys(over.body.errors)).toEqual(['amountCents']);
      const zero = await app
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 0 })
        .expect(400);
      expect(zero.body.errors).toEqual({ amountCents: ['amountCents must be at least 1'] });
      const decimal = await app
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 10.5 })
        .expect(400);
      expect(decimal.body.errors).toEqual({
        amountCents: ['amountCents must be an integer number of cents'],
      });
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.refunds).toHaveLength(1);
    });

    // Audit: a NUL in `actor` was a PostgreSQL error (500) at the refund's INSERT; SQLite stored the controls.
    it('refuses an actor with a NUL, a line break or a bidi override (400 naming actor), refunding nothing', async () => {
      const inv = await paid('pix');
      for (const actor of ['ana\u0000x', 'ana\nx', 'ana\u202Ex']) {
        const res = await app
          .http()
          .post(`${A}/invoices/${inv.id}/refund`)
          .set(adminAuth)
          .send({ amountCents: 500, actor });
        expect([actor, res.status]).toEqual([actor, 400]);
        expect(res.body).toMatchObject({ code: 'invalid', field: 'actor' });
        expect(Object.keys(res.body.errors)).toEqual(['actor']);
      }
      expect(await db.dataSource.getRepository(InvoiceRefund).countBy({ invoiceRecordId: inv.id })).toBe(0);
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.refunds).toHaveLength(0);
      expect((await record(inv.id)).refundedCents).toBe(0);
    });

    it('refuses to refund an unpaid invoice (409), sending nothing', async () => {
      const inv = await newInvoice('pix');
      await app
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 100 })
        .expect(409);
      expect(sandbox.controls.getInvoice(inv.gatewayId)?.refunds).toHaveLength(0);
    });
  });

  describe('resend webhook', () => {
    afterEach(async () => {
      await app.http().put(`${A}/settings`).set(adminAuth).send({ mode: null }).expect(200);
    });

    it('asks the sandbox to deliver the latest update again', async () => {
      await paid('pix');
      const res = await app
        .http()
        .post(`${A}/webhooks/resend`)
        .set(adminAuth)
        .send({ url: app.webhookUrl, events: 'invoice.update', webhook: 'default' })
        .expect(200);
      expect(res.body).toMatchObject({ success: true, total: 1 });
      expect(res.body.responses[0]).toMatchObject({ webhook: 'default', httpStatus: 200 });
    });

    it('is refused in production mode (409) and nothing reaches the service', async () => {
      await app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({
          mode: 'production',
          baseUrl: PUBLIC_BASE_URL,
          accessToken: 'sandbox-token',
          publicWebhookUrl: 'https://shop.example.com/webhooks/invoice-payments',
        })
        .expect(200);
      const before = sandbox.deliveries().length;
      const res = await app
        .http()
        .post(`${A}/webhooks/resend`)
        .set(adminAuth)
        .send({ url: app.webhookUrl })
        .expect(409);
      expect(res.body.message).toMatch(/refused in production mode/);
      expect(sandbox.deliveries().length).toBe(before);
    });

    it('validates the body, naming the fields', async () => {
      const res = await app
        .http()
        .post(`${A}/webhooks/resend`)
        .set(adminAuth)
        .send({ url: 'not a url', events: 'Invoice Update' })
        .expect(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['events', 'url']);
    });
  });
});
