import type { DataSource } from 'typeorm';
import { isPostgres, isSqlite } from '../core/transaction';

/**
 * What the module needs of the database where PostgreSQL and SQLite differ, said once: a flow asks its
 * DataSource's dialect and does not branch on the database itself. PostgreSQL gives each caller its own pooled
 * connection, so concurrent writers need row locks, `SKIP LOCKED` and advisory locks. SQLite has one connection per
 * DataSource, whose transactions the module queues one after the other (`core/transaction.ts`), so it needs none of
 * them; but the host's work on that connection and the module's interleave unless one finishes first.
 */
export interface Dialect {
  /** Ends a claim's row selection so concurrent claimers take disjoint rows without waiting (`''`: not needed). */
  readonly skipLocked: string;
  /** The lock a row read in a transaction takes before it is written there (`null`: not needed). */
  readonly rowLock: 'pessimistic_write' | null;
  /** Advisory locks, with which instances take turns (the migrations); without them one process owns the database. */
  readonly advisoryLocks: boolean;
  /** The host and the module share one connection: work the module starts for the host is finished before it goes on. */
  readonly sharedConnection: boolean;
  /** The admin list's any-case prefix search over invoice `table` aliased `i`, each term on its index (`nameIndexQuery`: whether the name's index exists; `null`: always). */
  readonly invoiceSearch: {
    where(table: string, columns: readonly string[]): string;
    nameIndexQuery: string | null;
  };
  /** The `n`th (from 1) positional parameter of a raw statement. */
  readonly parameter: (n: number) => string;
  /** `INSERT` of `rows` (`(…), (…)`) into `table` skipping those whose unique `key` exists, `RETURNING "id"`. */
  readonly insertIgnoring: (table: string, columns: string, rows: string, key: string) => string;
}

const POSTGRES: Dialect = {
  skipLocked: 'FOR UPDATE SKIP LOCKED',
  rowLock: 'pessimistic_write',
  advisoryLocks: true,
  sharedConnection: false,
  invoiceSearch: {
    // `lower(column) LIKE` (escape `\\` by default) on `text_pattern_ops` indexes; the name on its trigram index.
    where: (_table, columns) =>
      `(${[...columns, 'customer_name'].map((c) => `lower(i.${c}) LIKE :prefix`).join(' OR ')}` +
      ` OR lower(i.customer_name) LIKE :word)`,
    nameIndexQuery: 'SELECT 1 FROM pg_indexes WHERE indexname = $1',
  },
  parameter: (n) => `$${n}`,
  insertIgnoring: (table, columns, rows, key) =>
    `INSERT INTO ${table} (${columns}) VALUES ${rows} ON CONFLICT (${key}) DO NOTHING RETURNING "id"`,
};

const SQLITE: Dialect = {
  skipLocked: '',
  rowLock: null,
  advisoryLocks: false,
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

/** The dialect of `dataSource`'s database. */
export function dialectOf(dataSource: DataSource): Dialect {
  if (isPostgres(dataSource)) return POSTGRES;
  return isSqlite(dataSource) ? SQLITE : { ...SQLITE, sharedConnection: false };
}
