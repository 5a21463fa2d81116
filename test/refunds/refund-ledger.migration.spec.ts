import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { RefundLedger1763700008000 } from '../../migrations/1763700008000-RefundLedger';
import { INVOICE_PAYMENTS_ENTITIES } from '../../src/entities';
import { InvoiceRefund } from '../../src/refunds/refund.entity';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

describeEachDatabase('refund ledger migration', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [InvoiceRefund],
      migrations: [RefundLedger1763700008000],
      migrationsRun: false,
    });
  });
  afterAll(async () => db.destroy());

  it('is registered in the module lists', () => {
    expect(INVOICE_PAYMENTS_MIGRATIONS).toContain(RefundLedger1763700008000);
    expect(INVOICE_PAYMENTS_ENTITIES).toContain(InvoiceRefund);
  });

  it('creates the table exactly as the entity describes it', async () => {
    await db.dataSource.runMigrations();
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('refuses a second refund in flight for an invoice and a repeated key, allows many settled ones', async () => {
    const repo = db.dataSource.getRepository(InvoiceRefund);
    const row = (id: string, key: string, inFlight: string | null) =>
      repo.create({
        id,
        invoiceRecordId: 'inv-1',
        inFlightInvoiceId: inFlight,
        amountCents: 100,
        requestedBy: 'test',
        idempotencyKey: key,
        state: inFlight ? 'pending' : 'succeeded',
        baselineCents: null,
        settlesAt: null,
        nextCheckAt: null,
        checks: 0,
        reason: null,
        alerted: false,
        createdAt: new Date(),
        updatedAt: new Date(),
        settledAt: null,
      });
    await repo.insert(row('a', 'k1', null));
    await repo.insert(row('b', 'k2', null));
    await repo.insert(row('c', 'k3', 'inv-1'));
    await expect(repo.insert(row('d', 'k4', 'inv-1'))).rejects.toThrow();
    await expect(repo.insert(row('e', 'k1', null))).rejects.toThrow();
  });

  it('drops the table on the way down', async () => {
    await db.dataSource.undoLastMigration();
    const qr = db.dataSource.createQueryRunner();
    try {
      expect(await qr.hasTable('invoice_payments_refund')).toBe(false);
    } finally {
      await qr.release();
    }
  });
});
