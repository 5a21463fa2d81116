import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

const ALERTS = 'invoice_payments_alert';

/**
 * Alerts raised by the module (`src/settings/alert.entity.ts`), for the admin page. QueryRunner schema API only, so
 * the same migration runs on PostgreSQL and SQLite; timestamps are ISO-8601 text as everywhere in the module.
 */
export class Alerts1763700005000 implements MigrationInterface {
  name = 'Alerts1763700005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: ALERTS,
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '32' },
          { name: 'order_id', type: 'varchar', length: '128', isNullable: true },
          { name: 'invoice_record_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'message', type: 'text' },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'acknowledged_at', type: 'varchar', length: '32', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'IDX_invoice_payments_alert_created', columnNames: ['created_at'] }),
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(ALERTS, true, true, true);
  }
}
