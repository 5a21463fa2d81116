import { mergeConfig, runMigrations } from '@vendure/core';
import { testConfig } from '@vendure/testing';
import { INVOICE_PAYMENTS_ENTITIES, INVOICE_PAYMENTS_MIGRATIONS, InvoiceRecord } from '../../src/index';
import { InvoicePaymentsPlugin } from '../../src/vendure';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';
import './support';

describeEachDatabase("the plugin's migrations through Vendure's migration tooling", (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind, { entities: INVOICE_PAYMENTS_ENTITIES });
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it("runMigrations with the plugin creates the module tables once, and Vendure's schema check finds them current", async () => {
    // Vendure prints every schema difference it finds after migrating; this database lacks Vendure's own tables
    // (only the plugin's migrations are given), so those are listed, and none may be about the module's tables.
    const printed: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(args.map(String).join(' '));
    });
    const config = () =>
      mergeConfig(testConfig, {
        dbConnectionOptions: { ...db.options, synchronize: false, migrationsRun: false, migrations: [] },
        plugins: [
          InvoicePaymentsPlugin.init({
            gateway: { baseUrl: 'http://127.0.0.1:9', accessToken: 'x', mode: 'sandbox' },
          }),
        ],
      });
    const ran = await runMigrations(config());
    expect(ran).toEqual(INVOICE_PAYMENTS_MIGRATIONS.map((m) => m.name));
    expect(await db.dataSource.getRepository(InvoiceRecord).count()).toBe(0);
    expect(await runMigrations(config())).toEqual([]);
    log.mockRestore();
    expect(printed.some((line) => /CREATE TABLE/.test(line))).toBe(true);
    expect(printed.filter((line) => /invoice_payments|tracking_outbox/.test(line))).toEqual([]);
  });
});
