import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The kind of a tracking code's last failure (`validation`, `timeout`, ...), next to its message, so the admin page
 * can say in the reader's language why a code failed. Portable: SQLite and PostgreSQL.
 */
export class TrackingErrorKind1763700011100 implements MigrationInterface {
  name = 'TrackingErrorKind1763700011100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'invoice_payments_tracking_outbox',
      new TableColumn({ name: 'last_error_kind', type: 'varchar', length: '32', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('invoice_payments_tracking_outbox', 'last_error_kind');
  }
}
