import { Column, Entity, PrimaryColumn, type DataSource } from 'typeorm';
import { TimestampColumn } from './columns';
import { runReturning, runStatement } from './dialect';
import { escapeQuery } from './typeorm-compat';

/** Which instance runs a singleton job until when; a crashed holder's lease lapses at `lockedUntil`. */
@Entity('invoice_payments_lease')
export class InvoicePaymentsLease {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 64 })
  holder!: string;

  @TimestampColumn('locked_until')
  lockedUntil!: Date;
}

/**
 * Takes or renews the lease `name` for `holder` unless another's is live at `now` (epoch ms; `true` when it has it);
 * one conditional upsert, so two instances never both hold it.
 */
export async function acquireLease(
  dataSource: DataSource,
  name: string,
  holder: string,
  leaseMs: number,
  now: number,
): Promise<boolean> {
  const table = dataSource.getMetadata(InvoicePaymentsLease).tableName;
  const until = new Date(now + leaseMs).toISOString();
  const values = { name, holder, until, now: new Date(now).toISOString() };
  const upsert =
    `INSERT INTO ${table} (name, holder, locked_until) VALUES (:name, :holder, :until) ` +
    'ON CONFLICT (name) DO UPDATE SET holder = :holder, locked_until = :until ' +
    `WHERE ${table}.holder = :holder OR ${table}.locked_until <= :now RETURNING name`;
  return (await runReturning(dataSource, upsert, values)).length > 0;
}

/** Gives the lease up at once (a graceful stop), so another instance need not wait for it to lapse. */
export async function releaseLease(dataSource: DataSource, name: string, holder: string): Promise<void> {
  const [sql, values] = escapeQuery(
    dataSource,
    `UPDATE ${dataSource.getMetadata(InvoicePaymentsLease).tableName} SET locked_until = :past ` +
      'WHERE name = :name AND holder = :holder',
    { past: new Date(0).toISOString(), name, holder },
  );
  await runStatement(dataSource, (em) => em.query(sql, values));
}
