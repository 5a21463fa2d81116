import { MigrationInterface, QueryRunner } from 'typeorm';

const INVOICE = 'invoice_payments_invoice';

/**
 * Where the reconciliation's window of an invoice starts when not at its creation: a record put back on the schedule
 * (a status the reconciliation watches applied, or its due date moved, once it was off) is watched anew from that
 * moment (docs/webhooks.md). Null for every existing row: their windows keep counting from their creation. Plain
 * `ALTER TABLE` on both dialects: TypeORM's SQLite column changes rebuild the table, which would drop the search's
 * expression indexes.
 */
export class ReconciliationWatchedFrom1763700015300 implements MigrationInterface {
  name = 'ReconciliationWatchedFrom1763700015300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${INVOICE} ADD COLUMN watched_from varchar(32)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${INVOICE} DROP COLUMN watched_from`);
  }
}
