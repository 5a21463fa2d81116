import { Alerts1763700005000 } from '../../migrations/1763700005000-Alerts';
import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { INVOICE_PAYMENTS_ENTITIES } from '../../src/entities';
import { InvoicePaymentsAlertRecord } from '../../src/settings/alert.entity';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

describeEachDatabase('Alerts migration', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [InvoicePaymentsAlertRecord],
      migrations: [Alerts1763700005000],
      migrationsRun: false,
    });
  });
  afterAll(async () => db.destroy());

  it('is registered in the module lists', () => {
    expect(INVOICE_PAYMENTS_MIGRATIONS).toContain(Alerts1763700005000);
    expect(INVOICE_PAYMENTS_ENTITIES).toContain(InvoicePaymentsAlertRecord);
  });

  it('creates the table exactly as the entity describes it', async () => {
    const ran = await db.dataSource.runMigrations();
    expect(ran.map((m) => m.name)).toEqual(['Alerts1763700005000']);
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('drops the table on the way down', async () => {
    await db.dataSource.undoLastMigration();
    const qr = db.dataSource.createQueryRunner();
    try {
      expect(await qr.hasTable('invoice_payments_alert')).toBe(false);
    } finally {
      await qr.release();
    }
  });
});
