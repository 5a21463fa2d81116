import type {
  DataSource,
  EntityManager,
  EntityMetadata,
  EntityTarget,
  ObjectLiteral,
  QueryRunner,
  SelectQueryBuilder,
} from 'typeorm';
import { dataSourceOf, escapeQuery, queryReturning } from './typeorm-compat';
import { InvoiceRecord, InvoiceStatusHistory } from './invoice.entity';

/** Where PostgreSQL and SQLite differ, said once: a flow asks its DataSource's dialect, never the database's name. */
export type Dialect = typeof POSTGRES;

const POSTGRES = {
  /** A status report is written by one guarded statement, with no lock, read or transaction. */
  guardedStatusWrite: true,
  /** Ends a claim's row selection so concurrent claimers take disjoint rows without waiting (`''`: not needed). */
  skipLocked: 'FOR UPDATE SKIP LOCKED',
  /** Locks the row a transaction reads before it writes it there (none on SQLite, one writer at a time). */
  lockForWrite: <T extends ObjectLiteral>(qb: SelectQueryBuilder<T>) => qb.setLock('pessimistic_write'),
  /**
   * Runs `work` holding the advisory lock `key`, with which instances take turns (the migrations): until the
   * transaction ends inside one, else until `work` ends. Without advisory locks one process owns the database.
   */
  withLock: async <T>(queryRunner: QueryRunner, key: string, work: () => Promise<T>): Promise<T> => {
    if (queryRunner.isTransactionActive) {
      await queryRunner.query('SELECT pg_advisory_xact_lock($1)', [key]);
      return work();
    }
    await queryRunner.query('SELECT pg_advisory_lock($1)', [key]);
    try {
      return await work();
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  },
  /** The host and the module share one connection: transactions are queued; no change is handed over at once. */
  sharedConnection: false,
  /** The admin list's any-case prefix search over `table` aliased `i` (`nameIndexQuery`: does the name index exist). */
  invoiceSearch: {
    // `lower(column) LIKE` (escape `\\` by default) on `text_pattern_ops` indexes; the name on its trigram index.
    where: (_table: string, columns: readonly string[]) =>
      `(${[...columns, 'customer_name'].map((c) => `lower(i.${c}) LIKE :prefix`).join(' OR ')}` +
      ` OR lower(i.customer_name) LIKE :word)`,
    nameIndexQuery: 'SELECT 1 FROM pg_indexes WHERE indexname = $1' as string | null,
  },
  /** The `n`th (from 1) positional parameter of a raw statement. */
  parameter: (n: number) => `$${n}`,
  /** `INSERT` of `rows` (`(…), (…)`) into `table` skipping those whose unique `key` exists, `RETURNING "id"`. */
  insertIgnoring: (table: string, columns: string, rows: string, key: string) =>
    `INSERT INTO ${table} (${columns}) VALUES ${rows} ON CONFLICT (${key}) DO NOTHING RETURNING "id"`,
};

const SQLITE: Dialect = {
  guardedStatusWrite: false,
  skipLocked: '',
  lockForWrite: (qb) => qb,
  withLock: (_queryRunner, _key, work) => work(),
  sharedConnection: true,
  invoiceSearch: {
    // `LIKE` is any case for ASCII on `COLLATE NOCASE` indexes; the name by a scan of its narrow (name, id) index.
    where: (table, columns) => {
      const like = (column: string, pattern: string) => `${column} LIKE :${pattern} ESCAPE '\\'`;
      const name = `${like('n.customer_name', 'prefix')} OR ${like('n.customer_name', 'word')}`;
      const prefixed = columns.map((c) => like(`i.${c}`, 'prefix')).join(' OR ');
      return `(${prefixed} OR i.id IN (SELECT n.id FROM ${table} n WHERE ${name}))`;
    },
    nameIndexQuery: null,
  },
  parameter: () => '?',
  insertIgnoring: (table, columns, rows) =>
    `INSERT OR IGNORE INTO ${table} (${columns}) VALUES ${rows} RETURNING "id"`,
};

/** The TypeORM database types the module runs on (docs/configuration.md), each with its dialect. */
// `sqljs` is SQLite compiled to WebAssembly, with the same SQL: Vendure's own test harness runs a store on it.
const DIALECTS: Record<string, Dialect> = { postgres: POSTGRES, 'better-sqlite3': SQLITE, sqljs: SQLITE };

/** `true` when the DataSource talks to PostgreSQL (the migrations ask). */
export function isPostgres(dataSource: DataSource): boolean {
  return dataSource.options.type === 'postgres';
}

/**
 * The dialect of a DataSource's database. Another type is refused: the status service asks at start, so a store on
 * an unsupported database does not start.
 */
export function dialectOf(dataSource: DataSource): Dialect {
  const { type } = dataSource.options;
  const dialect = Object.hasOwn(DIALECTS, type) ? DIALECTS[type] : undefined;
  if (dialect) return dialect;
  const supported = Object.keys(DIALECTS).join(', ');
  throw new Error(
    `InvoicePaymentsModule: database type "${type}" is not supported; use one of: ${supported}`,
  );
}

const sqliteQueues = new WeakMap<DataSource, Promise<void>>();

/**
 * Runs `work` in one transaction. SQLite's transactions are queued per DataSource: on its one shared connection two
 * at once would nest as savepoints. Not re-entrant: on SQLite, calling it from inside `work` waits forever.
 */
export async function runInTransaction<T>(
  dataSource: DataSource,
  work: (em: EntityManager) => Promise<T>,
): Promise<T> {
  if (!dialectOf(dataSource).sharedConnection) return dataSource.transaction(work);
  const previous = sqliteQueues.get(dataSource) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  sqliteQueues.set(dataSource, tail);
  await previous;
  try {
    return await dataSource.transaction(work);
  } finally {
    release();
    // An idle DataSource holds no promise.
    if (sqliteQueues.get(dataSource) === tail) sqliteQueues.delete(dataSource);
  }
}

/** One self-atomic statement; on SQLite through the transaction queue, lest it join another caller's transaction. */
export function runStatement<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (!dialectOf(dataSource).sharedConnection) return work(dataSource.manager);
  return runInTransaction(dataSource, work);
}

/** {@link runStatement} of one `RETURNING` statement with `:name` parameters: the rows it returned. */
export function runReturning(dataSource: DataSource, sql: string, parameters: ObjectLiteral) {
  return runStatement(dataSource, (em) => queryReturning(em, ...escapeQuery(dataSource, sql, parameters)));
}

/**
 * For each of `entities`, whether one statement wrote it (`false`: its value of the unique column `key`, by database
 * name, was already stored). A batch the database refuses goes again one by one: a row it refuses fails only itself.
 */
export async function insertEachIgnoring<T extends { id: string }>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
  key: string,
  entities: T[],
): Promise<Array<boolean | Error>> {
  const insert = (some: T[]) =>
    runStatement(dataSource, (em) => insertIgnoringDuplicates(em, entity, key, some));
  try {
    const written = await insert(entities);
    return entities.map((e) => written.has(e.id));
  } catch (err) {
    if (entities.length === 1) throw err;
    return Promise.all(
      entities.map((e) =>
        insert([e]).then(
          (written) => written.has(e.id),
          (one: unknown) => (one instanceof Error ? one : new Error(String(one))),
        ),
      ),
    );
  }
}

/** The ids of the entities written, ignoring duplicates of the unique column `key`; values through the transformers. */
async function insertIgnoringDuplicates<T extends ObjectLiteral>(
  em: EntityManager,
  entity: EntityTarget<T>,
  key: string,
  entities: T[],
): Promise<Set<string>> {
  const dataSource = dataSourceOf(em);
  const { columns, tableName } = dataSource.getMetadata(entity);
  const { parameter, insertIgnoring } = dialectOf(dataSource);
  const names = columns.map((c) => `"${c.databaseName}"`).join(', ');
  const tuples = entities.map(
    (_e, r) => `(${columns.map((_c, i) => parameter(r * columns.length + i + 1)).join(', ')})`,
  );
  const sql = insertIgnoring(`"${tableName}"`, names, tuples.join(', '), `"${key}"`);
  const values = entities.flatMap((e) => columns.map((c) => c.getEntityValue(e, true) as unknown));
  const rows = await queryReturning(em, sql, values);
  return new Set(rows.map((r) => String(r.id)));
}

export type ColumnMetadata = EntityMetadata['columns'][number];

// PostgreSQL types a bare parameter in a SELECT list as text; never VARCHAR(n), which would truncate, not refuse.
const CASTABLE = ['text', 'integer', 'bigint', 'boolean'];

/**
 * The status path's guarded statement (PostgreSQL): the record patched and its history row inserted only while the
 * record is at its version, its schedule and its history as read. `$1` the record's id, `$2` its version, `$3` its
 * `next_check_at` (the reconciliation moves it without a version bump, and the patch may put the record back on
 * the schedule), the patch's values, the guard's latest and open count, the history's.
 */
export function guardedStatusStatement(dataSource: DataSource, properties: string[]) {
  const record = dataSource.getMetadata(InvoiceRecord);
  const history = dataSource.getMetadata(InvoiceStatusHistory);
  let n = 3;
  const patchColumns = properties.map((property) => {
    const column = record.findColumnWithPropertyName(property);
    if (!column) throw new Error(`guarded status statement: InvoiceRecord has no column for ${property}`);
    return column;
  });
  const version = `"${record.versionColumn?.databaseName ?? 'version'}"`;
  const nextCheck = record.findColumnWithPropertyName('nextCheckAt')?.databaseName ?? 'next_check_at';
  const sets = [...patchColumns.map((c) => `"${c.databaseName}" = $${++n}`), `${version} = ${version} + 1`];
  const latest = `$${++n}`;
  const open = `$${++n}`;
  const table = `"${history.tableName}"`;
  const values = history.columns.map((c) => {
    const cast = String(c.type) === 'varchar' ? 'text' : String(c.type);
    if (!CASTABLE.includes(cast))
      throw new Error(`guarded status statement: no cast for column ${c.databaseName} (${cast})`);
    return `CAST($${++n} AS ${cast.toUpperCase()})`;
  });
  const sql =
    `WITH upd AS (UPDATE "${record.tableName}" SET ${sets.join(', ')} ` +
    `WHERE "id" = $1 AND ${version} = $2 AND "${nextCheck}" IS NOT DISTINCT FROM CAST($3 AS TEXT) ` +
    `AND (SELECT MAX(h."created_at") FROM ${table} h WHERE h."invoice_record_id" = $1) ` +
    `IS NOT DISTINCT FROM CAST(${latest} AS TEXT) ` +
    `AND (SELECT COUNT(*) FROM ${table} h WHERE h."invoice_record_id" = $1 ` +
    `AND h."applied" AND h."notified_at" IS NULL) = CAST(${open} AS INTEGER) RETURNING "id") ` +
    `INSERT INTO ${table} (${history.columns.map((c) => `"${c.databaseName}"`).join(', ')}) ` +
    `SELECT ${values.join(', ')} FROM upd RETURNING "id"`;
  return { sql, patchColumns, historyColumns: history.columns };
}
