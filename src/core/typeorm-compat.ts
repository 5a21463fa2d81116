import type { DataSource, EntityManager, ObjectLiteral, QueryRunner } from 'typeorm';

/**
 * Everything the module needs from TypeORM that differs between the two lines it supports, 0.3.20+ and 1.x (the
 * peer range `^0.3.20 || ^1.0.0`). The rest of the code goes through these functions and never names a property
 * or signature that one of the lines lacks. What the two lines share (repositories, query builders,
 * `InsertResult`/`UpdateResult.affected`, the QueryRunner schema API used by `migrations/`, the `better-sqlite3`
 * and `postgres` drivers, `migrationsRun`) needs nothing here; the consumer test runs the package on both lines.
 *
 * What TypeORM 1 changed that reaches this module:
 * - `EntityManager`, `QueryRunner` and `QueryBuilder` name their DataSource `dataSource`; 0.3 calls it `connection`,
 *   which 1.x keeps only as a deprecated alias on some classes (not in the `QueryRunner` interface's types).
 * - `Driver.escapeQueryWithParameters` lost its third argument (`nativeParameters`), which 0.3 requires.
 * - `typeorm/package.json` and deep imports are no longer reachable through `exports` the same way: import types
 *   from `typeorm` itself (`QueryDeepPartialEntity` is exported there on both lines).
 */

/** The one property a TypeORM object names its DataSource by, on either line. */
interface DataSourceHolder {
  readonly dataSource?: DataSource;
  readonly connection?: DataSource;
}

/** The DataSource an entity manager or query runner belongs to: `dataSource` on TypeORM 1, `connection` on 0.3. */
export function dataSourceOf(holder: EntityManager | QueryRunner): DataSource {
  const { dataSource, connection } = holder as unknown as DataSourceHolder;
  const found = dataSource ?? connection;
  if (!found) throw new Error('this TypeORM object names no DataSource (neither dataSource nor connection)');
  return found;
}

/** 0.3's signature; 1.x takes (and ignores past) the first two arguments, so the call below suits both. */
type EscapeQueryWithParameters = (
  sql: string,
  parameters: ObjectLiteral,
  nativeParameters: ObjectLiteral,
) => [string, unknown[]];

/** `sql` with `:name` parameters turned into the driver's placeholders (`$1`, `?`) and their values in order. */
export function escapeQuery(
  dataSource: DataSource,
  sql: string,
  parameters: ObjectLiteral,
): [string, unknown[]] {
  const { driver } = dataSource;
  const escape = driver.escapeQueryWithParameters.bind(driver) as unknown as EscapeQueryWithParameters;
  return escape(sql, parameters, {});
}

/**
 * The rows of a statement with `RETURNING` (INSERT, UPDATE or DELETE), whatever the driver: TypeORM's plain
 * `query()` answers an UPDATE or DELETE on PostgreSQL with `[rows, affectedCount]` and everything else with the rows
 * (the same on 0.3 and 1.x).
 */
export async function queryReturning(
  em: EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<Array<Record<string, unknown>>> {
  const raw = (await em.query(sql, parameters)) as unknown[];
  const pair = raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number';
  return (pair ? raw[0] : raw) as Array<Record<string, unknown>>;
}
