import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

const INVOICE = 'invoice_payments_invoice';
const NEXT_CHECK_INDEX = 'IDX_invoice_payments_invoice_next_check';
const LEASE = 'invoice_payments_lease';

/**
 * The reconciliation of open invoices: `next_check_at` on the invoice (indexed; open records due now, others off the
 * schedule) and the named-lease table (one instance at a time runs it). Portable: SQLite and PostgreSQL.
 */
export class OpenInvoiceReconciliation1763700009000 implements MigrationInterface {
  name = 'OpenInvoiceReconciliation1763700009000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      INVOICE,
      new TableColumn({ name: 'next_check_at', type: 'varchar', length: '32', isNullable: true }),
    );
    // Final records (and failed creations) are off the schedule; open ones stay NULL: due at the first round.
    await queryRunner.query(
      `UPDATE ${INVOICE} SET next_check_at = '9999-12-31T00:00:00.000Z' ` +
        `WHERE creation_state = 'failed' OR (status_code IS NOT NULL AND status_code NOT IN (1, 2, 3, 4, 7, 15))`,
    );
    await queryRunner.createIndex(
      INVOICE,
      new TableIndex({ name: NEXT_CHECK_INDEX, columnNames: ['next_check_at'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: LEASE,
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'holder', type: 'varchar', length: '64' },
          { name: 'locked_until', type: 'varchar', length: '32' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(LEASE);
    await queryRunner.dropIndex(INVOICE, NEXT_CHECK_INDEX);
    await queryRunner.dropColumn(INVOICE, 'next_check_at');
  }
}
