import { Settings1763700003000 } from '../../migrations/1763700003000-Settings';
import { SettingsWireProfile1763700004000 } from '../../migrations/1763700004000-SettingsWireProfile';
import { SettingsReferrerNamespace1763700008100 } from '../../migrations/1763700008100-SettingsReferrerNamespace';
import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { INVOICE_PAYMENTS_ENTITIES } from '../../src/entities';
import { InvoicePaymentsSettingsRecord } from '../../src/settings/settings.entity';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

describeEachDatabase('Settings migration', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [InvoicePaymentsSettingsRecord],
      migrations: [
        Settings1763700003000,
        SettingsWireProfile1763700004000,
        SettingsReferrerNamespace1763700008100,
      ],
      migrationsRun: false,
    });
  });
  afterAll(async () => db.destroy());

  it('is registered in the module lists', () => {
    expect(INVOICE_PAYMENTS_MIGRATIONS).toContain(Settings1763700003000);
    expect(INVOICE_PAYMENTS_MIGRATIONS).toContain(SettingsWireProfile1763700004000);
    expect(INVOICE_PAYMENTS_MIGRATIONS).toContain(SettingsReferrerNamespace1763700008100);
    expect(INVOICE_PAYMENTS_ENTITIES).toContain(InvoicePaymentsSettingsRecord);
  });

  it('creates the table exactly as the entity describes it', async () => {
    const ran = await db.dataSource.runMigrations();
    expect(ran.map((m) => m.name)).toEqual([
      'Settings1763700003000',
      'SettingsWireProfile1763700004000',
      'SettingsReferrerNamespace1763700008100',
    ]);
    // No pending change: the migration and the entity agree on every column, type and nullability.
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('drops the namespace column, the wire-profile column, then the table, on the way down', async () => {
    await db.dataSource.undoLastMigration();
    await db.dataSource.undoLastMigration();
    const qr = db.dataSource.createQueryRunner();
    try {
      expect(await qr.hasColumn('invoice_payments_settings', 'wire_profile')).toBe(false);
      expect(await qr.hasColumn('invoice_payments_settings', 'time_zone')).toBe(true);
      await db.dataSource.undoLastMigration();
      expect(await qr.hasTable('invoice_payments_settings')).toBe(false);
    } finally {
      await qr.release();
    }
  });
});
