import type { DataSource, EntityMetadata } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { queryReturning } from './typeorm-compat';

type ColumnMetadata = EntityMetadata['columns'][number];

/** What the writer knows of the record's history; the statement writes only if the database still says so. */
interface HistoryGuard {
  latest: string | null;
  openChanges: number;
}

/**
 * A status report's history row and the record's patch in one PostgreSQL statement, written only if the record is
 * still at `version` and its history still has `guard.latest` as its latest time and `guard.openChanges` changes
 * to deliver: a data-modifying CTE updates the record under those conditions and the history row is inserted from
 * what it returned, so both are written or neither. `true` when written.
 *
 * Every writer of the history locks and updates the record first (the status path), so a change of either moves
 * the version too. Values are bound as TypeORM binds them (`preparePersistentValue`: transformers included).
 */
export async function writeGuarded(
  dataSource: DataSource,
  history: InvoiceStatusHistory,
  patch: Partial<InvoiceRecord>,
  version: number,
  guard: HistoryGuard,
): Promise<boolean> {
  const record = dataSource.getMetadata(InvoiceRecord);
  const rows = dataSource.getMetadata(InvoiceStatusHistory);
  const params: unknown[] = [history.invoiceRecordId, version];
  const bind = (column: ColumnMetadata, value: unknown): string => {
    params.push(dataSource.driver.preparePersistentValue(value, column));
    return `$${params.length}`;
  };
  const sets = Object.keys(patch).map((property) => {
    const column = record.findColumnWithPropertyName(property);
    if (!column) throw new Error(`writeGuarded: InvoiceRecord has no column for ${property}`);
    return `"${column.databaseName}" = ${bind(column, patch[property as keyof InvoiceRecord])}`;
  });
  const versionColumn = `"${record.versionColumn?.databaseName ?? 'version'}"`;
  sets.push(`${versionColumn} = ${versionColumn} + 1`);
  params.push(guard.latest, guard.openChanges);
  const [latest, open] = [`$${params.length - 1}`, `$${params.length}`];
  const table = `"${rows.tableName}"`;
  const columns = rows.columns.map((c) => `"${c.databaseName}"`).join(', ');
  const values = rows.columns.map((c) => `CAST(${bind(c, c.getEntityValue(history))} AS ${castOf(c)})`);
  const sql =
    `WITH upd AS (UPDATE "${record.tableName}" SET ${sets.join(', ')} ` +
    `WHERE "id" = $1 AND ${versionColumn} = $2 ` +
    `AND (SELECT MAX(h."created_at") FROM ${table} h WHERE h."invoice_record_id" = $1) ` +
    `IS NOT DISTINCT FROM CAST(${latest} AS TEXT) ` +
    `AND (SELECT COUNT(*) FROM ${table} h WHERE h."invoice_record_id" = $1 ` +
    `AND h."applied" AND h."notified_at" IS NULL) = CAST(${open} AS INTEGER) RETURNING "id") ` +
    `INSERT INTO ${table} (${columns}) SELECT ${values.join(', ')} FROM upd RETURNING "id"`;
  return (await queryReturning(dataSource.manager, sql, params)).length === 1;
}

/**
 * The SQL type a value of the SELECT list is cast to (PostgreSQL types a bare parameter there as text); text goes
 * as TEXT, never VARCHAR(n), which would truncate where the column refuses.
 */
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
