import type { DataSource, EntityManager } from 'typeorm';

const SQLITE_TYPES = new Set([
  'better-sqlite3',
  'sqlite',
  'sqljs',
  'capacitor',
  'cordova',
  'expo',
  'react-native',
]);

/** `true` when the DataSource talks to SQLite (one shared connection per DataSource). */
export function isSqlite(dataSource: DataSource): boolean {
  return SQLITE_TYPES.has(dataSource.options.type);
}

/** `true` when the DataSource talks to PostgreSQL (row locks, SKIP LOCKED and advisory locks available). */
export function isPostgres(dataSource: DataSource): boolean {
  return dataSource.options.type === 'postgres';
}

const sqliteQueues = new WeakMap<DataSource, Promise<void>>();

/**
 * Runs `work` in one database transaction.
 *
 * On SQLite, TypeORM shares a single connection among all callers, so two transactions started at once would
 * silently nest as savepoints of each other and commit or roll back together. Transactions through this function
 * are therefore queued one after the other per DataSource (SQLite serializes writers anyway). On PostgreSQL each
 * transaction gets its own pooled connection and this is a plain `dataSource.transaction`.
 *
 * Not re-entrant: on SQLite, calling it (or anything that does, such as `InvoiceStatusService.apply` without its `tx`) from
 * inside `work` waits for itself forever. Finish the transaction first.
 */
export async function runInTransaction<T>(
  dataSource: DataSource,
  work: (em: EntityManager) => Promise<T>,
): Promise<T> {
  if (!isSqlite(dataSource)) return dataSource.transaction(work);
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
    // Drop the chain once nobody queued behind us, so an idle DataSource holds no promise.
    if (sqliteQueues.get(dataSource) === tail) sqliteQueues.delete(dataSource);
  }
}

/**
 * Runs one statement that is atomic by itself. On PostgreSQL it goes straight to the pool (no BEGIN/COMMIT round
 * trips); on SQLite it still goes through {@link runInTransaction}'s queue, because a statement on the shared
 * connection while another caller's transaction is open would become part of that transaction.
 */
export function runStatement<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (!isSqlite(dataSource)) return work(dataSource.manager);
  return runInTransaction(dataSource, work);
}
