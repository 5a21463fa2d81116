import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The status outbox's delivery lease (`notify_locked_until`), replacing the PostgreSQL advisory lock that kept a
 * pooled connection while the host's port ran. Portable: SQLite and PostgreSQL.
 */
export class StatusNotifyLease1763700006000 implements MigrationInterface {
  name = 'StatusNotifyLease1763700006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'invoice_payments_status_history',
      new TableColumn({ name: 'notify_locked_until', type: 'varchar', length: '32', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('invoice_payments_status_history', 'notify_locked_until');
  }
}
