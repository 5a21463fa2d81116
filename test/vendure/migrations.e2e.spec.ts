import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMigration, mergeConfig, runMigrations } from '@vendure/core';
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

  it('runMigrations creates the module tables once; a store migration generated after it has none of them and runs', async () => {
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

    // docs/vendure.md's order on this fresh database: the plugin's migrations ran first (above), so the store's own
    // generated migration holds Vendure's tables and the custom field, and none of the module's: it then runs cleanly
    // after them (generated first, it would create the module's tables again and fail with "already exists").
    const outputDir = mkdtempSync(join(tmpdir(), 'vendure-store-migration-'));
    try {
      jest.spyOn(console, 'log').mockImplementation(() => undefined);
      await generateMigration(config(), { name: 'store', outputDir });
      jest.restoreAllMocks();
      const [file] = readdirSync(outputDir);
      const source = readFileSync(join(outputDir, file), 'utf8');
      const up = source.slice(source.indexOf('public async up'), source.indexOf('public async down'));
      const statements = [...up.matchAll(/queryRunner\.query\(`((?:[^`\\]|\\.)*)`/g)].map((m) =>
        m[1].replace(/\\(.)/g, '$1'),
      );
      expect(statements.some((sql) => /CREATE TABLE "customer"/.test(sql))).toBe(true);
      expect(statements.some((sql) => /customFieldsTaxdocument/i.test(sql))).toBe(true);
      expect(statements.filter((sql) => /invoice_payments/.test(sql))).toEqual([]);
      for (const sql of statements) await db.dataSource.query(sql);
    } finally {
      rmSync(outputDir, { recursive: true, force: true });
    }
  });
});
