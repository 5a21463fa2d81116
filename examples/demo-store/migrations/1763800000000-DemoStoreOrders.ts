import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

const ORDERS = 'demo_store_order';

const varchar = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const text = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'text',
  isNullable: nullable,
});
const cents = (name: string): TableColumnOptions => ({ name, type: 'bigint', isNullable: false });

/**
 * The demo store's own table. A host keeps its migrations next to the module's (`INVOICE_PAYMENTS_MIGRATIONS`) and
 * runs them together; written with the QueryRunner schema API so it runs on PostgreSQL and SQLite alike.
 */
export class DemoStoreOrders1763800000000 implements MigrationInterface {
  name = 'DemoStoreOrders1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: ORDERS,
        columns: [
          { ...varchar('id', 40), isPrimary: true },
          { name: 'display_id', type: 'integer', isNullable: false, isUnique: true },
          varchar('status', 16),
          varchar('payment_status', 24),
          varchar('fulfillment_status', 24),
          varchar('currency_code', 3),
          text('items'),
          text('customer'),
          text('shipping_address', true),
          text('billing_address', true),
          cents('subtotal'),
          cents('shipping_total'),
          cents('discount_total'),
          cents('total'),
          cents('refunded_total'),
          varchar('payment_method', 16, true),
          varchar('invoice_record_id', 36, true),
          text('payment_events'),
          varchar('tracking_code', 64, true),
          varchar('carrier', 128, true),
          text('tracking_url', true),
          varchar('shipped_at', 32, true),
          varchar('canceled_at', 32, true),
          varchar('created_at', 32),
          varchar('updated_at', 32),
          { name: 'version', type: 'integer', isNullable: false },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(ORDERS, true, true, true);
  }
}
