import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

const SETTINGS = 'invoice_payments_settings';

/**
 * Only our invoices (issue 21): the settings' `referrer_namespace`, this installation's prefix of every referrer,
 * made once at random on first use and kept. Existing rows get none until then; records made before keep their
 * referrers (see docs/refunds.md, "Only our invoices"). Portable: SQLite and PostgreSQL.
 */
export class SettingsReferrerNamespace1763700008100 implements MigrationInterface {
  name = 'SettingsReferrerNamespace1763700008100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      SETTINGS,
      new TableColumn({ name: 'referrer_namespace', type: 'varchar', length: '16', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn(SETTINGS, 'referrer_namespace');
  }
}
