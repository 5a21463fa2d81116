import type { DataSource, EntityMetadata } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../persistence/invoice.entity';
import type { KnownHistory } from './status-plan';
import { queryReturning } from './typeorm-compat';

type ColumnMetadata = EntityMetadata['columns'][number];

/**
 * The history row and the record's patch in one data-modifying CTE, written (`true`) only if the record is still at
 * `version` and its history as `guard` says. Every history writer updates the record, so its version moves with either.
 */
export async function writeGuarded(
  dataSource: DataSource,
  history: InvoiceStatusHistory,
  patch: Partial<InvoiceRecord>,
  version: number,
  guard: KnownHistory,
): Promise<boolean> {
  const statement = statementFor(dataSource, Object.keys(patch));
  const prepare = (column: ColumnMetadata, value: unknown): unknown =>
    dataSource.driver.preparePersistentValue(value, column);
  const params: unknown[] = [
    history.invoiceRecordId,
    version,
    ...statement.patchColumns.map((c) => prepare(c, patch[c.propertyName as keyof InvoiceRecord])),
    guard.latest,
    guard.openChanges,
    ...statement.historyColumns.map((c) => prepare(c, c.getEntityValue(history))),
  ];
  return (await queryReturning(dataSource.manager, statement.sql, params)).length === 1;
}

interface GuardedStatement {
  sql: string;
  patchColumns: ColumnMetadata[];
  historyColumns: ColumnMetadata[];
}

const statements = new WeakMap<DataSource, Map<string, GuardedStatement>>();

/** `$1` the record's id, `$2` its version, the patch's values, the guard's latest and open count, the history's. */
function statementFor(dataSource: DataSource, properties: string[]): GuardedStatement {
  let known = statements.get(dataSource);
  if (!known) statements.set(dataSource, (known = new Map()));
  const key = properties.join(',');
  const cached = known.get(key);
  if (cached) return cached;
  const record = dataSource.getMetadata(InvoiceRecord);
  const rows = dataSource.getMetadata(InvoiceStatusHistory);
  let n = 2;
  const patchColumns = properties.map((property) => {
    const column = record.findColumnWithPropertyName(property);
    if (!column) throw new Error(`writeGuarded: InvoiceRecord has no column for ${property}`);
    return column;
  });
  const sets = patchColumns.map((c) => `"${c.databaseName}" = $${++n}`);
  const versionColumn = `"${record.versionColumn?.databaseName ?? 'version'}"`;
  sets.push(`${versionColumn} = ${versionColumn} + 1`);
  const [latest, open] = [`$${++n}`, `$${++n}`];
  const table = `"${rows.tableName}"`;
  const historyColumns = rows.columns;
  const names = historyColumns.map((c) => `"${c.databaseName}"`).join(', ');
  const values = historyColumns.map((c) => `CAST($${++n} AS ${castOf(c)})`);
  const sql =
    `WITH upd AS (UPDATE "${record.tableName}" SET ${sets.join(', ')} ` +
    `WHERE "id" = $1 AND ${versionColumn} = $2 ` +
    `AND (SELECT MAX(h."created_at") FROM ${table} h WHERE h."invoice_record_id" = $1) ` +
    `IS NOT DISTINCT FROM CAST(${latest} AS TEXT) ` +
    `AND (SELECT COUNT(*) FROM ${table} h WHERE h."invoice_record_id" = $1 ` +
    `AND h."applied" AND h."notified_at" IS NULL) = CAST(${open} AS INTEGER) RETURNING "id") ` +
    `INSERT INTO ${table} (${names}) SELECT ${values.join(', ')} FROM upd RETURNING "id"`;
  if (known.size >= 256) known.clear();
  const statement = { sql, patchColumns, historyColumns };
  known.set(key, statement);
  return statement;
}

// PostgreSQL types a bare parameter in a SELECT list as text; never VARCHAR(n), which would truncate, not refuse.
function castOf(column: ColumnMetadata): string {
  switch (column.type) {
    case 'varchar':
    case 'text':
      return 'TEXT';
    case 'integer':
      return 'INTEGER';
    case 'bigint':
      return 'BIGINT';
    case 'boolean':
      return 'BOOLEAN';
    default:
      throw new Error(`writeGuarded: no cast for column ${column.databaseName} (${String(column.type)})`);
  }
}
