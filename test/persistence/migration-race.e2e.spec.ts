import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { runInvoicePaymentsMigrations } from '../../src/medusa/runtime';
import { INVOICE_PAYMENTS_ENTITIES } from '../../src/entities';
import { initializeDataSource, isSerializedMigration } from '../../src/persistence/migration-lock';
import { databaseKinds, describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

const INSTANCES = 3;
/** Migrating calls no service. */
const UNUSED_GATEWAY = { baseUrl: 'http://127.0.0.1:9', accessToken: 'unused', mode: 'sandbox' as const };
type Mode = 'all' | 'each';

/** The DataSource options a host gives TypeORM, as the README shows them, on the test's database. */
function hostOptions(db: TestDatabase, mode: Mode = 'all'): DataSourceOptions {
  return {
    ...db.options,
    entities: INVOICE_PAYMENTS_ENTITIES,
    migrations: INVOICE_PAYMENTS_MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: mode,
  } as DataSourceOptions;
}

/** One app instance as the README sets it up, with no connection retry: a failed migration fails its start. */
async function startApp(options: DataSourceOptions) {
  @Module({
    imports: [
      TypeOrmModule.forRootAsync({
        useFactory: () => ({ ...options, retryAttempts: 0 }),
        dataSourceFactory: initializeDataSource,
      }),
    ],
  })
  class HostModule {}
  const moduleRef = await Test.createTestingModule({ imports: [HostModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false, abortOnError: false });
  await app.init();
  return app;
}

/** Every migration's name with how many rows TypeORM's migrations table holds for it. */
async function recordedCounts(dataSource: DataSource): Promise<Record<string, number>> {
  const rows = (await dataSource.query('SELECT name FROM migrations')) as Array<{ name: string }>;
  const counts: Record<string, number> = {};
  for (const { name } of rows) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

const oncePerMigration = () =>
  Object.fromEntries(INVOICE_PAYMENTS_MIGRATIONS.map((m) => [new m().name ?? m.name, 1]));

/** Applies the first migration only: a database an older release of the module left. */
async function olderDatabase(db: TestDatabase): Promise<void> {
  const first = await new DataSource({
    ...hostOptions(db),
    migrations: INVOICE_PAYMENTS_MIGRATIONS.slice(0, 1),
  } as DataSourceOptions).initialize();
  await first.destroy();
}

describe('INVOICE_PAYMENTS_MIGRATIONS', () => {
  it('holds every migration of the module serialized, under its own name and timestamp, oldest first', () => {
    const names = INVOICE_PAYMENTS_MIGRATIONS.map((m) => new m().name ?? m.name);
    expect(INVOICE_PAYMENTS_MIGRATIONS.filter((m) => !isSerializedMigration(m))).toEqual([]);
    for (const m of INVOICE_PAYMENTS_MIGRATIONS) expect(m.name).toMatch(/\d{13}$/);
    expect(names).toEqual(INVOICE_PAYMENTS_MIGRATIONS.map((m) => m.name));
    const stamps = names.map((n) => Number(n.slice(-13)));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
  });
});

describeEachDatabase('migrations run through initializeDataSource', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await openTestDatabase(kind, { migrationsRun: false });
  });
  afterEach(async () => db.destroy());

  it('apply every migration once and leave the schema the entities describe', async () => {
    const dataSource = await initializeDataSource(hostOptions(db));
    try {
      expect(await recordedCounts(dataSource)).toEqual(oncePerMigration());
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});

// PostgreSQL only: on SQLite one process owns the database file (docs/configuration.md).
for (const kind of databaseKinds().filter((k) => k === 'postgres')) {
  describe(`three instances started at once [${kind}]`, () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await openTestDatabase(kind, { migrationsRun: false });
    });
    afterEach(async () => db.destroy());

    async function startAllAtOnce(options: DataSourceOptions) {
      const started = await Promise.allSettled(Array.from({ length: INSTANCES }, () => startApp(options)));
      const apps = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      try {
        expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual(
          Array(INSTANCES).fill('up'),
        );
        expect(await recordedCounts(apps[0].get<DataSource>(getDataSourceToken()))).toEqual(
          oncePerMigration(),
        );
      } finally {
        await Promise.all(apps.map((app) => app.close()));
      }
    }

    it('all come up on a fresh database, each migration applied once', async () => {
      await startAllAtOnce(hostOptions(db));
    });

    it('all come up on an older database (only the first migration applied)', async () => {
      await olderDatabase(db);
      await startAllAtOnce(hostOptions(db));
    });

    it('all come up on a fresh database in migrationsTransactionMode "each"', async () => {
      await startAllAtOnce(hostOptions(db, 'each'));
    });

    // Hosts that hand the migrations to TypeORM without initializeDataSource: the migrations serialize themselves.
    it.each<Mode>(['all', 'each'])(
      'plain DataSources with migrationsRun (mode %s) all come up on an older database',
      async (mode) => {
        await olderDatabase(db);
        const started = await Promise.allSettled(
          Array.from({ length: INSTANCES }, () => new DataSource(hostOptions(db, mode)).initialize()),
        );
        const sources = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
        try {
          expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual(
            Array(INSTANCES).fill('up'),
          );
          expect(await recordedCounts(sources[0])).toEqual(oncePerMigration());
        } finally {
          await Promise.all(sources.map((s) => s.destroy()));
        }
      },
    );

    it('Medusa providers starting at once create the schema and migrate once', async () => {
      const databaseUrl = (db.options as { url: string }).url;
      const ran = await Promise.all(
        Array.from({ length: INSTANCES }, () =>
          runInvoicePaymentsMigrations({ gateway: UNUSED_GATEWAY, databaseUrl }),
        ),
      );
      expect(ran.flat().sort()).toEqual(Object.keys(oncePerMigration()).sort());
      const rows = (await db.dataSource.query(
        'SELECT name FROM invoice_payments.invoice_payments_migrations',
      )) as unknown[];
      expect(rows).toHaveLength(INVOICE_PAYMENTS_MIGRATIONS.length);
    });
  });
}
