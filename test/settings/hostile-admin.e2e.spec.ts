import request from 'supertest';
import { MAX_JSON_DEPTH } from '../../src/gateway/json';
import { InvoiceRecord } from '../../src/index';
import { InvoiceRefund } from '../../src/refunds/refund.entity';
import { InvoicePaymentsSettingsRecord } from '../../src/settings/settings.entity';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { adminAuth, AdminApp, openAdminDatabase, startAdminApp } from './support';

const A = '/admin/invoice-payments';

/** JSON text of objects nested `levels` deep: `{"a":{"a":…1}}`. */
const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** A list cursor as the API encodes one, holding what the caller likes. */
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Routes with an id, as an attacker would probe them with a NUL byte. */
const ID_ROUTES: Array<[string, 'get' | 'post', (id: string) => string]> = [
  ['GET invoices/:id', 'get', (id) => `${A}/invoices/${id}`],
  ['GET invoices/:id/history', 'get', (id) => `${A}/invoices/${id}/history`],
  ['POST invoices/:id/cancel', 'post', (id) => `${A}/invoices/${id}/cancel`],
  ['POST invoices/:id/recheck', 'post', (id) => `${A}/invoices/${id}/recheck`],
  ['POST invoices/:id/due-date', 'post', (id) => `${A}/invoices/${id}/due-date`],
  ['POST invoices/:id/refund', 'post', (id) => `${A}/invoices/${id}/refund`],
  ['POST invoices/:id/mark-not-created', 'post', (id) => `${A}/invoices/${id}/mark-not-created`],
  ['POST webhooks/inbox/:id/retry', 'post', (id) => `${A}/webhooks/inbox/${id}/retry`],
  ['POST tracking/outbox/:id/retry', 'post', (id) => `${A}/tracking/outbox/${id}/retry`],
  ['POST alerts/:id/acknowledge', 'post', (id) => `${A}/alerts/${id}/acknowledge`],
];

describeEachDatabase('the admin API under attack', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;

  beforeAll(async () => {
    db = await openAdminDatabase(kind);
    sandbox = await startSandbox();
    // Probing many paths without a key is the point here, so the throttle is out of the way in this app.
    app = await startAdminApp(db, sandbox, { admin: { authThrottle: { maxFailures: 1000 } } });
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it.each(ID_ROUTES)(
    '%s with a NUL byte or 200 characters as the id: 400 naming id, never 500',
    async (_, method, path) => {
      for (const id of ['%00', 'x%00y', 'a'.repeat(200), '%E2%80%AEabc']) {
        const res = await app.http()[method](path(id)).set(adminAuth).send({});
        expect([path(id).slice(0, 60), res.status]).toEqual([path(id).slice(0, 60), 400]);
        expect(Object.keys(res.body.errors)).toEqual(['id']);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    },
  );

  it('a NUL byte in a query filter is a 400 naming it; the records stay untouched', async () => {
    const res = await app.http().get(`${A}/invoices?orderId=a%00b`).set(adminAuth);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['orderId']);
    expect(await db.dataSource.getRepository(InvoiceRecord).count()).toBe(0);
  });

  // Red team after issues 23 and 25: a NUL in `q` and a 1e20 ecommerce id were PostgreSQL errors (500).
  it('the search text `q` with a NUL byte or a bidi override: 400 naming q (PostgreSQL refuses NUL in text)', async () => {
    for (const q of ['%00', 'a%00b', 'Ana%E2%80%AE', 'x%0D%0Ay']) {
      const res = await app.http().get(`${A}/invoices?q=${q}`).set(adminAuth);
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.body).toMatchObject({ code: 'invalid', field: 'q' });
      expect(Object.keys(res.body.errors)).toEqual(['q']);
    }
    // An ordinary search (emoji and accents included) still answers.
    const ok = await app
      .http()
      .get(`${A}/invoices?q=${encodeURIComponent('João 😀')}`)
      .set(adminAuth);
    expect(ok.status).toBe(200);
  });

  // Audit: class-transformer recursed into a deep body until the stack overflowed (a RangeError, 500) at ~5 000
  // levels, a 30 kB body well under the 100 kB limit.
  it(`a body nested deeper than ${MAX_JSON_DEPTH} levels: 400 naming body before any field is read, nothing saved`, async () => {
    const before = await db.dataSource.getRepository(InvoicePaymentsSettingsRecord).find();
    const send = (method: 'put' | 'post', path: string, body: string) =>
      app.http()[method](`${A}${path}`).set(adminAuth).set('Content-Type', 'application/json').send(body);
    for (const [method, path, body] of [
      ['put', '/settings', `{"wireProfile":${nested(5000)}}`],
      ['post', '/invoices/x/refund', `{"amountCents":100,"x":${nested(5000)}}`],
      ['put', '/settings', `{"wireProfile":${nested(MAX_JSON_DEPTH)}}`],
    ] as const) {
      const res = await send(method, path, body);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body).toMatchObject({ code: 'invalid', field: 'body' });
      expect(Object.keys(res.body.errors)).toEqual(['body']);
    }
    // At the bound the body is read, and its fields judged.
    const atBound = await send(
      'post',
      '/invoices/x/refund',
      `{"amountCents":100,"x":${nested(MAX_JSON_DEPTH - 1)}}`,
    );
    expect(atBound.status).toBe(400);
    expect(atBound.body).toMatchObject({ code: 'unknown_field', field: 'x' });
    expect(await db.dataSource.getRepository(InvoicePaymentsSettingsRecord).find()).toEqual(before);
    expect(await db.dataSource.getRepository(InvoiceRefund).count()).toBe(0);
  });

  // Audit: the cursor's id went to SQL unchecked; PostgreSQL refuses a NUL in text (500).
  it('a hand-made cursor whose id holds a NUL, a bidi override or spaces around it: 400 naming cursor', async () => {
    for (const id of [
      'a\u0000b',
      '00000000-0000-4000-8000-\u202E00000000001',
      ' 00000000-0000-4000-8000-0 ',
    ]) {
      const cursor = cursorOf(['2026-11-30T06:36:55.342Z', id]);
      const res = await app.http().get(`${A}/invoices?cursor=${cursor}`).set(adminAuth);
      expect([id, res.status]).toEqual([id, 400]);
      expect(res.body).toMatchObject({ code: 'invalid', field: 'cursor' });
      expect(Object.keys(res.body.errors)).toEqual(['cursor']);
    }
    // A record's id is still a cursor.
    const ok = cursorOf(['2026-11-30T06:36:55.342Z', '00000000-0000-4000-8000-000000000001']);
    expect((await app.http().get(`${A}/invoices?cursor=${ok}`).set(adminAuth)).status).toBe(200);
  });

  it('ecommerce ids beyond a 32-bit integer (1e20, 2^31): 400 naming the field with its limit, nothing saved', async () => {
    const before = await db.dataSource.getRepository(InvoicePaymentsSettingsRecord).find();
    for (const [ecommerce, field] of [
      [{ storeId: 1e20, checkout: 1 }, 'ecommerce.storeId'],
      [{ storeId: 1, checkout: 2 ** 31 }, 'ecommerce.checkout'],
      [{ storeId: Number.MAX_SAFE_INTEGER, checkout: 1 }, 'ecommerce.storeId'],
    ] as const) {
      const res = await app.http().put(`${A}/settings`).set(adminAuth).send({ ecommerce });
      expect([field, res.status]).toEqual([field, 400]);
      expect(res.body).toMatchObject({ code: 'too_large', field, limit: 2147483647 });
    }
    expect(await db.dataSource.getRepository(InvoicePaymentsSettingsRecord).find()).toEqual(before);
    // The largest accepted is stored and read back exactly.
    const ok = await app
      .http()
      .put(`${A}/settings`)
      .set(adminAuth)
      .send({ ecommerce: { storeId: 2147483647, checkout: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body.ecommerce).toEqual({ storeId: 2147483647, checkout: 1 });
  });

  it('every path under the prefix is 401 without a valid key, known or not: the routes cannot be listed', async () => {
    const paths = [
      '/settings',
      '/invoices',
      '/nope',
      '/invoices/x/nope',
      '/a/b/c/d',
      '/webhooks/inbox/1/nope',
    ];
    for (const path of paths) {
      for (const auth of [{}, { Authorization: 'Bearer wrong-key-0123456789' }]) {
        const get = await request(app.url).get(`${A}${path}`).set(auth);
        const post = await request(app.url).post(`${A}${path}`).set(auth).send({});
        expect([path, get.status, post.status]).toEqual([path, 401, 401]);
        expect(get.headers['x-content-type-options']).toBe('nosniff');
      }
    }
    // With the key an unknown path is a 404 that does not repeat it.
    const probe = `${A}/%3Cscript%3Ealert(1)%3C%2Fscript%3E/x`;
    const res = await app.http().get(probe).set(adminAuth);
    expect(res.status).toBe(404);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.stringify(res.body)).not.toMatch(/script|alert/i);
  });

  it('the admin page and its files stay public, with nosniff; an unknown file is a 404 without its name', async () => {
    const page = await request(app.url).get(`${A}/`);
    expect(page.status).toBe(200);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const missing = await request(app.url).get(`${A}/assets/%3Cscript%3Ex.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect(missing.text).not.toMatch(/script/i);
  });

  it('answers of the API and of the webhook route carry nosniff', async () => {
    const ok = await app.http().get(`${A}/settings`).set(adminAuth);
    expect(ok.status).toBe(200);
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    const bad = await request(app.url)
      .post('/webhooks/invoice-payments')
      .set('Content-Type', 'application/json')
      .send('[1]');
    expect(bad.status).toBe(400);
    expect(bad.headers['x-content-type-options']).toBe('nosniff');
  });
});
