import type { DataSource } from 'typeorm';
import { isPostgres, runStatement } from './transaction';
import { queryReturning } from './typeorm-compat';

const TABLE = 'invoice_payments_lease';

/**
 * Takes or renews the lease `name` for `holder` until `now + leaseMs`, unless another holder's lease is still live:
 * `true` when `holder` has it. One conditional `UPDATE ... RETURNING`, else one `INSERT ... ON CONFLICT DO NOTHING`
 * for the first ever taker, so two instances on one database (PostgreSQL or SQLite) never both hold it.
 */
export async function acquireLease(
  dataSource: DataSource,
  name: string,
  holder: string,
  leaseMs: number,
): Promise<boolean> {
  const now = new Date();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const pg = isPostgres(dataSource);
  const p = (i: number) => (pg ? `$${i}` : '?');
  const update =
    `UPDATE ${TABLE} SET holder = ${p(1)}, locked_until = ${p(2)} ` +
    `WHERE name = ${p(3)} AND (holder = ${p(4)} OR locked_until <= ${p(5)}) RETURNING name`;
  const updated = await runStatement(dataSource, (em) =>
    queryReturning(em, update, [holder, until, name, holder, now.toISOString()]),
  );
  if (updated.length > 0) return true;
  const insert =
    `INSERT INTO ${TABLE} (name, holder, locked_until) VALUES (${p(1)}, ${p(2)}, ${p(3)}) ` +
    `ON CONFLICT (name) DO NOTHING RETURNING name`;
  const inserted = await runStatement(dataSource, (em) => queryReturning(em, insert, [name, holder, until]));
  return inserted.length > 0;
}

/** Gives the lease up at once (a graceful stop), so another instance need not wait for it to lapse. */
export async function releaseLease(dataSource: DataSource, name: string, holder: string): Promise<void> {
  const pg = isPostgres(dataSource);
  const p = (i: number) => (pg ? `$${i}` : '?');
  await runStatement(dataSource, (em) =>
    em.query(`UPDATE ${TABLE} SET locked_until = ${p(1)} WHERE name = ${p(2)} AND holder = ${p(3)}`, [
      new Date(0).toISOString(),
      name,
      holder,
    ]),
  );
}
