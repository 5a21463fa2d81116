import { CLOCK } from '../../src/domain/clock';
import { addDays, todayIn } from '../../src/domain/text-and-days';
import { InvoiceRecord } from '../../src/index';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, waitFor } from '../checkout/support';
import { SAO_PAULO_NOON, ShiftedClock } from '../support/clock';
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

const TOKEN = 'tok_full_scopes_0000000000000025';
const A = ADMIN_PATH;

/**
 * What the admin page builds on (issue 25): errors as stable codes naming the field and the limit, the actions an
 * invoice's state allows and what is left to refund, and the order number and customer kept at checkout and
 * searchable. Over HTTP against the sandbox, on both databases.
 */
describeEachDatabase('admin API: what the admin page needs', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;
  // The app and the sandbox read one clock, away from midnight: the earliest day the API names is the test's today.
  const clock = new ShiftedClock(SAO_PAULO_NOON);

  beforeAll(async () => {
    sandbox = await startSandbox({
      tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }],
      clock: () => clock.date(),
    });
    db = await openAdminDatabase(kind);
    app = await startAdminApp(db, sandbox, {
      accessToken: TOKEN,
      admin: { encryption: { keys: { k1: newKey() } } },
      overrides: [[CLOCK, clock]],
    });
    await pointWebhooksAtApp(app);
  });
  afterAll(async () => {
    await app.close();
    await sandbox.close();
    await db.destroy();
  });

  const get = (path: string) => app.http().get(`${A}${path}`).set(adminAuth);
  const post = (path: string, body?: object) => app.http().post(`${A}${path}`).set(adminAuth).send(body);
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });

  async function newInvoice(overrides: Parameters<typeof makeOrder>[0] = {}) {
    const order = makeOrder(overrides);
    const out = await app.provider.initiatePayment(checkout(order, 'pix'));
    return { order, id: out.id, gatewayId: out.data.gatewayId as string };
  }
  async function paid() {
    const inv = await newInvoice();
    await sandbox.controls.pay(inv.gatewayId);
    await waitFor(async () => (await record(inv.id)).statusCode === 5, 10_000, 'paid by webhook');
    return inv;
  }

  describe('error codes', () => {
    it('names the field, the code and the limit of a bound, and keeps the message', async () => {
      const res = await app.http().put(`${A}/settings`).set(adminAuth).send({ dueDays: 120 }).expect(400);
      expect(res.body).toMatchObject({
        statusCode: 400,
        code: 'too_large',
        field: 'dueDays',
        limit: 90,
        message: 'invalid dueDays',
        errors: { dueDays: ['dueDays must be at most 90'] },
      });
      const low = await app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({ maxInstallments: 0 })
        .expect(400);
      expect(low.body).toMatchObject({ code: 'too_small', field: 'maxInstallments', limit: 1 });
    });

    it('lists every problem, nested fields by dotted path, without echoing a value', async () => {
      const res = await app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({
          maxInstallments: 1.5,
          ecommerce: { storeId: 0, checkout: 'x' },
          baseUrl: 'ftp://secret-value',
        })
        .expect(400);
      const problems = res.body.problems as Array<{ field: string; code: string; limit?: number }>;
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'maxInstallments', code: 'not_integer' }),
          expect.objectContaining({ field: 'ecommerce.storeId', code: 'too_small', limit: 1 }),
          expect.objectContaining({ field: 'ecommerce.checkout', code: 'not_integer' }),
          expect.objectContaining({ field: 'baseUrl', code: 'not_url' }),
        ]),
      );
      expect(JSON.stringify(res.body)).not.toContain('secret-value');
    });

    it('codes query problems and unknown fields too', async () => {
      const long = await get(`/invoices?q=${'x'.repeat(101)}`).expect(400);
      expect(long.body).toMatchObject({ code: 'too_long', field: 'q', limit: 100 });
      // A cursor this list did not give: refused by its shape, then by what it names.
      for (const cursor of ['not a cursor', 'bm90LWEtY3Vyc29y']) {
        const bad = await get(`/invoices?cursor=${encodeURIComponent(cursor)}`).expect(400);
        expect(bad.body).toMatchObject({ field: 'cursor', errors: { cursor: [expect.any(String)] } });
      }
      const unknown = await app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({ colour: 'blue' })
        .expect(400);
      expect(unknown.body).toMatchObject({ code: 'unknown_field', field: 'colour' });
      const missing = await get('/invoices/00000000-0000-4000-8000-000000000000').expect(404);
      expect(missing.body).toMatchObject({ statusCode: 404, code: 'not_found' });
    });
  });

  describe('actions by state', () => {
    it('an open PIX invoice may change its due date or be canceled, not refunded', async () => {
      const inv = await newInvoice();
      const view = (await get(`/invoices/${inv.id}`).expect(200)).body;
      expect(view).toMatchObject({
        statusCode: 1,
        allowedActions: ['changeDueDate', 'cancel'],
        refundableCents: 0,
      });
      const refused = await post(`/invoices/${inv.id}/refund`, { amountCents: 100 }).expect(409);
      expect(refused.body).toMatchObject({
        code: 'action_not_allowed',
        action: 'refund',
        reason: 'wrong_status',
        invoiceStatus: 1,
      });
      expect(refused.body.message).toContain('only paid invoices');
      const today = todayIn('America/Sao_Paulo', clock.date());
      const early = await post(`/invoices/${inv.id}/due-date`, { dueDate: addDays(today, -1) }).expect(400);
      expect(early.body).toMatchObject({ code: 'too_early', field: 'dueDate', limit: today });
    });

    it('a paid invoice offers only the refund, bounded by what is left', async () => {
      const inv = await paid();
      const before = (await get(`/invoices/${inv.id}`).expect(200)).body;
      expect(before).toMatchObject({ allowedActions: ['refund'], refundableCents: inv.order.total });
      const cancel = await post(`/invoices/${inv.id}/cancel`).expect(409);
      expect(cancel.body).toMatchObject({ code: 'action_not_allowed', action: 'cancel', invoiceStatus: 5 });
      const due = await post(`/invoices/${inv.id}/due-date`, { dueDate: '2099-01-01' }).expect(409);
      expect(due.body).toMatchObject({
        code: 'action_not_allowed',
        action: 'changeDueDate',
        invoiceStatus: 5,
      });

      const after = (await post(`/invoices/${inv.id}/refund`, { amountCents: 1000 }).expect(200)).body;
      expect(after).toMatchObject({ refundedCents: 1000, refundableCents: inv.order.total - 1000 });
      expect(after.allowedActions).toEqual(['refund']);
      const tooMuch = await post(`/invoices/${inv.id}/refund`, { amountCents: inv.order.total }).expect(400);
      expect(tooMuch.body).toMatchObject({
        code: 'too_large',
        field: 'amountCents',
        limit: inv.order.total - 1000,
      });
      expect((await record(inv.id)).refundedCents).toBe(1000);
    });
  });

  describe('the order as people know it', () => {
    it('keeps the order number, the customer and the document masked, and finds them by q', async () => {
      const inv = await newInvoice({
        display_id: 48213,
        customer: {
          name: 'Joana Prado_Teste',
          email: 'joana.prado@example.com',
          document: '529.982.247-25',
        },
      });
      const other = await newInvoice({ display_id: 48214 });
      const view = (await get(`/invoices/${inv.id}`).expect(200)).body;
      expect(view).toMatchObject({
        displayId: '48213',
        customer: { name: 'Joana Prado_Teste', email: 'joana.prado@example.com', document: '***.982.247-**' },
      });
      // The full document is stored nowhere on the record.
      const raw = await db.dataSource.query(
        `SELECT customer_document FROM invoice_payments_invoice WHERE id = '${inv.id}'`,
      );
      expect(raw[0].customer_document).toBe('***.982.247-**');

      const ids = async (q: string, extra = '') =>
        (await get(`/invoices?q=${encodeURIComponent(q)}${extra}`).expect(200)).body.items.map(
          (i: { id: string }) => i.id,
        );
      expect(await ids('JOANA prado')).toEqual([inv.id]);
      expect(await ids('joana.prado@')).toEqual([inv.id]);
      expect(await ids('48213')).toEqual([inv.id]);
      expect(await ids('4821')).toEqual(expect.arrayContaining([inv.id, other.id]));
      expect(await ids('48213', '&status=5')).toEqual([]);
      expect(await ids('48213', '&status=1')).toEqual([inv.id]);
      // LIKE's wildcards are taken literally.
      expect(await ids('prado_teste')).toEqual([inv.id]);
      expect(await ids('prado%teste')).toEqual([]);
      expect(await ids('prado_t')).toEqual([inv.id]);
    });
  });
});
