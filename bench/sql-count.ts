/**
 * Counts the SQL statements the process sends to PostgreSQL: every `pg` client query (TypeORM's included, and its
 * `START TRANSACTION`/`COMMIT`), except on clients marked with {@link uncounted} (the bench's own probes).
 * Load this before anything opens a connection.
 */
import { Client } from 'pg';

export const sqlCount = { statements: 0, transactions: 0 };
const UNCOUNTED = Symbol('bench-uncounted');
/** `BENCH_TRACE_SQL=1`: print each counted statement (to see where a path's statements go). */
const TRACE = process.env.BENCH_TRACE_SQL === '1';

const original = Client.prototype.query as (...args: unknown[]) => unknown;
(Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: Client & { [UNCOUNTED]?: boolean },
  ...args: unknown[]
) {
  if (!this[UNCOUNTED]) {
    sqlCount.statements++;
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (typeof text === 'string' && /^\s*(START TRANSACTION|BEGIN)/i.test(text)) sqlCount.transactions++;
    if (TRACE) console.log(`[sql] ${String(text).replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  return original.apply(this, args);
};

/** Marks a client whose queries are not counted. */
export function uncounted(client: Client): Client {
  (client as Client & { [UNCOUNTED]?: boolean })[UNCOUNTED] = true;
  return client;
}
