import { InvoicePaymentsSettingsRecord } from '../../src/settings';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { adminAuth, AdminApp, newKey, openAdminDatabase, startAdminApp } from '../settings/support';

const A = '/admin/invoice-payments';

/**
 * Red team of the admin API (after issues 23 and 25): variants the landed suites do not try. Each is a 400 naming
 * the field on both databases, never a database error (500) and never a value stored that the column or the service
 * cannot hold.
 */
describeEachDatabase('the admin API against inputs the landed suites do not try', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;

  beforeAll(async () => {
    db = await openAdminDatabase(kind);
    sandbox = await startSandbox();
    app = await startAdminApp(db, sandbox, { admin: { encryption: { keys: { k1: newKey() } } } });
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await db?.destroy();
  });

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
});
