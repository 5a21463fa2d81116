import {
  DataSource,
  type DataSourceOptions,
  MigrationExecutor,
  type MigrationInterface,
  type QueryRunner,
} from 'typeorm';
import { dataSourceOf } from '../core/typeorm-compat';
import { dialectOf } from './dialect';

/** The advisory lock key of the module's migrations, as an operator finds it in `pg_locks` (`objid`). */
const MIGRATION_LOCK_KEY = '1768517999';

type MigrationClass = new () => MigrationInterface;

const serialized = new WeakSet<MigrationClass>();

/**
 * Makes `migration` safe from several instances at once: its `up` takes the module's advisory lock, then skips the
 * body another instance recorded meanwhile (removing that row: TypeORM records it again after `up`). Outside a
 * transaction the lock covers only the check and the body. Down migrations are not serialized.
 */
function serializedMigration<T extends MigrationClass>(migration: T): T {
  if (serialized.has(migration)) return migration;
  const own: unknown = migration.prototype.up;
  if (typeof own !== 'function')
    throw new Error(`migration ${migration.name} has no up() method to serialize`);
  const body = own as (this: MigrationInterface, queryRunner: QueryRunner) => Promise<unknown>;
  async function up(this: MigrationInterface, queryRunner: QueryRunner): Promise<unknown> {
    if (!dialectOf(dataSourceOf(queryRunner)).advisoryLocks) return body.call(this, queryRunner);
    // TypeORM names a migration by its `name` property, else by its class name.
    const name = this.name ?? migration.name;
    if (queryRunner.isTransactionActive) {
      await queryRunner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      if (await recorded(queryRunner, name)) return forget(queryRunner, name);
      return body.call(this, queryRunner);
    }
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      if (!(await recorded(queryRunner, name))) await body.call(this, queryRunner);
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  }
  Object.defineProperty(migration.prototype, 'up', { value: up, writable: true, configurable: true });
  serialized.add(migration);
  return migration;
}

export function serializedMigrations<T extends MigrationClass>(migrations: T[]): T[] {
  return migrations.map((m) => serializedMigration(m));
}

export function isSerializedMigration(migration: unknown): boolean {
  return typeof migration === 'function' && serialized.has(migration as MigrationClass);
}

/**
 * A DataSource initialized with its migrations (TypeORM's table included) run by one instance at a time; use it as
 * `TypeOrmModule.forRootAsync({ dataSourceFactory: initializeDataSource })` or await it (docs/hosts.md).
 */
export async function initializeDataSource(options?: DataSourceOptions): Promise<DataSource> {
  if (!options) throw new Error('initializeDataSource: DataSource options are required');
  if (!dialectOf(options).advisoryLocks || !options.migrationsRun)
    return new DataSource(options).initialize();
  const dataSource = await new DataSource({ ...options, migrationsRun: false }).initialize();
  try {
    await runMigrationsExclusively(dataSource, { transaction: options.migrationsTransactionMode });
  } catch (err) {
    await dataSource.destroy();
    throw err;
  }
  return dataSource;
}

/** Runs the pending migrations on one connection holding the advisory lock, after `before`; resolves their names. */
export async function runMigrationsExclusively(
  dataSource: DataSource,
  options: {
    transaction?: 'all' | 'each' | 'none';
    before?: (queryRunner: QueryRunner) => Promise<unknown>;
  } = {},
): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  const locks = dialectOf(dataSource).advisoryLocks;
  try {
    if (locks) await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await options.before?.(queryRunner);
      // TypeORM reads its migrations table only now; the migrations' own lock is granted at once (same session).
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = options.transaction ?? 'all';
      return (await executor.executePendingMigrations()).map((m) => m.name);
    } finally {
      if (locks) await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await queryRunner.release();
  }
}

/** TypeORM's migrations table of the query runner's DataSource, quoted (`"schema"."migrations"`). */
function migrationsTable(queryRunner: QueryRunner): string {
  const dataSource = dataSourceOf(queryRunner);
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  const schema = (dataSource.options as { schema?: string }).schema;
  return [schema, table]
    .filter((part): part is string => Boolean(part))
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

async function recorded(queryRunner: QueryRunner, name: string): Promise<boolean> {
  const rows = (await queryRunner.query(`SELECT 1 FROM ${migrationsTable(queryRunner)} WHERE name = $1`, [
    name,
  ])) as unknown[];
  return rows.length > 0;
}

async function forget(queryRunner: QueryRunner, name: string): Promise<void> {
  await queryRunner.query(`DELETE FROM ${migrationsTable(queryRunner)} WHERE name = $1`, [name]);
}
