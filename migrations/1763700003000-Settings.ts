import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** Admin settings, one row per store; secrets stored encrypted (`SecretBox`). Portable: SQLite and PostgreSQL. */
export class Settings1763700003000 implements MigrationInterface {
  name = 'Settings1763700003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const text = (name: string) => ({ name, type: 'text', isNullable: true });
    const int = (name: string) => ({ name, type: 'integer', isNullable: true });
    await queryRunner.createTable(
      new Table({
        name: 'invoice_payments_settings',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          text('base_url'),
          text('access_token_enc'),
          text('webhook_token_enc'),
          { name: 'mode', type: 'varchar', length: '16', isNullable: true },
          int('ecommerce_store_id'),
          int('ecommerce_checkout'),
          { name: 'enabled_methods', type: 'varchar', length: '64', isNullable: true },
          int('due_days'),
          int('max_installments'),
          text('public_webhook_url'),
          text('order_url_template'),
          text('store_url_template'),
          { name: 'time_zone', type: 'varchar', length: '64', isNullable: true },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'updated_at', type: 'varchar', length: '32' },
          { name: 'version', type: 'integer' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('invoice_payments_settings', true);
  }
}
