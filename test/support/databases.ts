import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource, DataSourceOptions, EntitySchema, MixedList } from 'typeorm';
import { postgresAdminUrl } from './pg-url';

export type DatabaseKind = 'sqlite' | 'postgres';

/** The databases persistence tests run on here: SQLite always, PostgreSQL when global setup found it. */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_POSTGRES_AVAILABLE === '0' ? ['sqlite'] : ['sqlite', 'postgres'];
}

/**
 * Registers the same suite once per database kind, so every persistence test runs on SQLite and PostgreSQL.
 * Titles carry the kind (`[sqlite]`, `[postgres]`) so a failure says where it failed.
 */
export function describeEachDatabase(title: string, body: (kind: DatabaseKind) => void): void {
  for (const kind of databaseKinds()) {
    describe(`${title} [${kind}]`, () => body(kind));
  }
}

export interface TestDatabaseOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations?: MixedList<Function | string>;
  /** Run the migrations on open (default true when migrations are given). */
  migrationsRun?: boolean;
  /** Let TypeORM create the schema from the entities instead of migrations (default false). */
  synchronize?: boolean;
  /** Pool size for PostgreSQL (default 10); concurrency tests want more. */
  poolSize?: number;
}

export interface TestDatabase {
  kind: DatabaseKind;
  dataSource: DataSource;
  /** Options that open another connection to the same database (a second app instance, a second worker). */
  options: DataSourceOptions;
  destroy(): Promise<void>;
}

/**
 * Opens a fresh, private database: a new PostgreSQL database (dropped on destroy) or a new SQLite file
 * in a temp folder (a file, not `:memory:`, so a second DataSource can open the same database).
 */
export async function openTestDatabase(
  kind: DatabaseKind,
  opts: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const common = {
    entities: opts.entities ?? [],
    migrations: opts.migrations ?? [],
    migrationsRun: opts.migrationsRun ?? Boolean(opts.migrations),
    synchronize: opts.synchronize ?? false,
    logging: false,
  } as const;

  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'nip-test-'));
    const options: DataSourceOptions = {
      type: 'better-sqlite3',
      database: join(dir, 'test.sqlite'),
      ...common,
    };
    const dataSource = await new DataSource(options).initialize();
    return {
      kind,
      dataSource,
      options,
      async destroy() {
        if (dataSource.isInitialized) await dataSource.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  const adminUrl = postgresAdminUrl();
  const name = `nip_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const options: DataSourceOptions = {
    type: 'postgres',
    url: url.toString(),
    extra: { max: opts.poolSize ?? 10 },
    ...common,
  };
  const dataSource = await new DataSource(options).initialize();
  return {
    kind,
    dataSource,
    options,
    async destroy() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
