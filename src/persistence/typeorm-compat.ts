import type { DataSource, EntityManager, ObjectLiteral, QueryRunner } from 'typeorm';

// What differs between the two TypeORM lines the module supports (0.3.20+ and 1.x): the rest of the code goes
// through these functions. Import types from `typeorm` itself: deep imports differ between the lines.

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

/** 0.3's signature (1.x lost `nativeParameters` and ignores it), so the call below suits both. */
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

/** The rows of a `RETURNING` statement: PostgreSQL's UPDATE or DELETE answers `[rows, affectedCount]`. */
export async function queryReturning(
  em: EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<Array<Record<string, unknown>>> {
  const raw = (await em.query(sql, parameters)) as unknown[];
  const pair = raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number';
  return (pair ? raw[0] : raw) as Array<Record<string, unknown>>;
}
