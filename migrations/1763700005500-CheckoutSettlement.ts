import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

const INVOICE = 'invoice_payments_invoice';
const HISTORY = 'invoice_payments_status_history';

/**
 * What the checkout needs to settle unknown creation outcomes and duplicate invoices (issue 13):
 * - `settles_at`: no new creation for the order before this instant (the request could still land);
 * - `unknown_since`: when the attempt's outcome became unknown (the "cannot decide" window counts from it);
 * - `attention_reason`: set when the module gave up deciding on its own (the session is `requires_more`);
 * - `duplicate_of`: the record of the order's invoice this one duplicates (canceled or alerted);
 * - history `actor` and a nullable `to_code`: an admin's resolution of an attempt's creation is recorded in the
 *   status history with who and when, and it carries no status code.
 * Portable: the QueryRunner schema API only (SQLite recreates the history table for the nullability change).
 */
export class CheckoutSettlement1763700005500 implements MigrationInterface {
  name = 'CheckoutSettlement1763700005500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns(INVOICE, [
      new TableColumn({ name: 'settles_at', type: 'varchar', length: '32', isNullable: true }),
      new TableColumn({ name: 'unknown_since', type: 'varchar', length: '32', isNullable: true }),
      new TableColumn({ name: 'attention_reason', type: 'text', isNullable: true }),
      new TableColumn({ name: 'duplicate_of', type: 'varchar', length: '36', isNullable: true }),
    ]);
    await queryRunner.addColumn(
      HISTORY,
      new TableColumn({ name: 'actor', type: 'varchar', length: '128', isNullable: true }),
    );
    await queryRunner.changeColumn(
      HISTORY,
      'to_code',
      new TableColumn({ name: 'to_code', type: 'integer', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Rows without a code (admin resolutions) cannot go back into a NOT NULL column.
    await queryRunner.query(`DELETE FROM ${HISTORY} WHERE to_code IS NULL`);
    await queryRunner.changeColumn(
      HISTORY,
      'to_code',
      new TableColumn({ name: 'to_code', type: 'integer', isNullable: false }),
    );
    await queryRunner.dropColumn(HISTORY, 'actor');
    for (const column of ['duplicate_of', 'attention_reason', 'unknown_since', 'settles_at']) {
      await queryRunner.dropColumn(INVOICE, column);
    }
  }
}
