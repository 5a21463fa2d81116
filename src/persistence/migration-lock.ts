import {
  DataSource,
  type DataSourceOptions,
  MigrationExecutor,
  type MigrationInterface,
  type QueryRunner,
} from 'typeorm';
import { dataSourceOf } from './typeorm-compat';
import { dialectOf } from './dialect';

/** The advisory lock key of the module's migrations, as an operator finds it in `pg_locks` (`objid`). */
const MIGRATION_LOCK_KEY = '1768517999';

type MigrationClass = new () => MigrationInterface;

const serialized = new WeakSet<MigrationClass>();

/**
 * Makes each migration safe from several instances at once: its `up` takes the module's advisory lock, then skips the
 * body another instance recorded meanwhile (removing that row: TypeORM records it again after `up`). Outside a
 * transaction the lock covers only the check and the body. Down migrations are not serialized.
 */
export function serializedMigrations<T extends MigrationClass>(migrations: T[]): T[] {
  return migrations.map((migration) => {
    if (serialized.has(migration)) return migration;
    const own: unknown = migration.prototype.up;
    if (typeof own !== 'function')
      throw new Error(`migration ${migration.name} has no up() method to serialize`);
    const body = own as (this: MigrationInterface, queryRunner: QueryRunner) => Promise<unknown>;
    async function up(this: MigrationInterface, queryRunner: QueryRunner): Promise<unknown> {
      // TypeORM names a migration by its `name` property, else by its class name.
      const name = this.name ?? migration.name;
      return dialectOf(dataSourceOf(queryRunner)).withLock(queryRunner, MIGRATION_LOCK_KEY, async () => {
        if ((await migrationRow(queryRunner, 'SELECT 1', name)).length === 0)
          return body.call(this, queryRunner);
        if (queryRunner.isTransactionActive) await migrationRow(queryRunner, 'DELETE', name);
      });
    }
    Object.defineProperty(migration.prototype, 'up', { value: up, writable: true, configurable: true });
    serialized.add(migration);
    return migration;
  });
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
  if (!options.migrationsRun) return new DataSource(options).initialize();
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
  try {
    return await dialectOf(dataSource).withLock(queryRunner, MIGRATION_LOCK_KEY, async () => {
      await options.before?.(queryRunner);
      // TypeORM reads its migrations table only now; the migrations' own lock is granted at once (same session).
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = options.transaction ?? 'all';
      return (await executor.executePendingMigrations()).map((m) => m.name);
    });
  } finally {
    await queryRunner.release();
  }
}

/** `verb` (`SELECT 1`, `DELETE`) on the row of TypeORM's migrations table (`"schema"."migrations"`) for `name`. */
async function migrationRow(queryRunner: QueryRunner, verb: string, name: string): Promise<unknown[]> {
  const dataSource = dataSourceOf(queryRunner);
  const { schema } = dataSource.options as { schema?: string };
  const table = [schema, dataSource.options.migrationsTableName ?? 'migrations']
    .flatMap((part) => (part ? [`"${part.replace(/"/g, '""')}"`] : []))
    .join('.');
  const sql = `${verb} FROM ${table} WHERE name = ${dialectOf(dataSource).parameter(1)}`;
  return (await queryRunner.query(sql, [name])) as unknown[];
}
