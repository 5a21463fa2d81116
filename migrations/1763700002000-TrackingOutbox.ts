import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex, TableUnique } from 'typeorm';

const OUTBOX = 'invoice_payments_tracking_outbox';

const varchar = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
// Timestamps are ISO-8601 text, as everywhere in the module: portable, and they compare correctly as strings.
const timestamp = (name: string, nullable = false): TableColumnOptions => varchar(name, 32, nullable);

/**
 * The tracking-code outbox (`src/shipping/`). Written with the QueryRunner schema API only, so the same migration
 * runs on PostgreSQL and SQLite.
 */
export class TrackingOutbox1763700002000 implements MigrationInterface {
  name = 'TrackingOutbox1763700002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: OUTBOX,
        columns: [
          { ...varchar('id', 36), isPrimary: true },
          varchar('order_id', 128),
          varchar('code', 64),
          varchar('carrier', 128, true),
          { name: 'url', type: 'text', isNullable: true },
          varchar('invoice_record_id', 36),
          varchar('gateway_invoice_id', 128),
          varchar('status', 16),
          { name: 'attempts', type: 'integer', isNullable: false, default: 0 },
          timestamp('next_attempt_at'),
          timestamp('locked_until', true),
          varchar('locked_by', 128, true),
          { name: 'last_error', type: 'text', isNullable: true },
          timestamp('recorded_at'),
          timestamp('sent_at', true),
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
        // The database itself keeps one row per (order, code): a repeated shipment event cannot queue it twice.
        uniques: [
          new TableUnique({
            name: 'UQ_invoice_payments_tracking_outbox_order_code',
            columnNames: ['order_id', 'code'],
          }),
        ],
        // The worker's claim: pending rows by due time.
        indices: [
          new TableIndex({
            name: 'IDX_invoice_payments_tracking_outbox_due',
            columnNames: ['status', 'next_attempt_at'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(OUTBOX, true, true, true);
  }
}
