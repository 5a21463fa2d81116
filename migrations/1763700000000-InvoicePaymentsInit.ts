import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';
import { isPostgres } from '../src/persistence/dialect';
import { dataSourceOf } from '../src/persistence/typeorm-compat';

const INVOICE = 'invoice_payments_invoice';
const HISTORY = 'invoice_payments_status_history';

// Column helpers: the portable types both drivers share (money as BIGINT cents, timestamps as ISO text).
const varchar = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const text = (name: string): TableColumnOptions => ({ name, type: 'text', isNullable: true });
const integer = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'integer',
  isNullable: nullable,
});
const cents = (name: string, nullable = true): TableColumnOptions => ({
  name,
  type: 'bigint',
  isNullable: nullable,
});
const timestamp = (name: string, nullable = false): TableColumnOptions => varchar(name, 32, nullable);
/**
 * `false` as each driver writes a boolean default (SQLite stores booleans as 0/1), so the schema matches what
 * TypeORM derives from the entities and a host's `migration:generate` finds nothing to change.
 */
const falseDefault = (queryRunner: QueryRunner): string | boolean =>
  isPostgres(dataSourceOf(queryRunner)) ? false : '0';

/**
 * The invoice of each payment attempt and its status history (`src/persistence/`).
 * Written with the QueryRunner schema API only, so the same migration runs on PostgreSQL and SQLite.
 */
export class InvoicePaymentsInit1763700000000 implements MigrationInterface {
  name = 'InvoicePaymentsInit1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const no = falseDefault(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: INVOICE,
        columns: [
          { ...varchar('id', 36), isPrimary: true },
          varchar('order_id', 128),
          // Unique: the database itself refuses a second open invoice for one order.
          { ...varchar('open_order_id', 128, true), isUnique: true },
          integer('attempt'),
          { ...varchar('referrer', 160), isUnique: true },
          varchar('creation_state', 16),
          varchar('method', 16),
          { ...varchar('gateway_id', 128, true), isUnique: true },
          varchar('gateway_uuid', 128, true),
          varchar('gateway_invoice_id', 128, true),
          integer('status_code', true),
          varchar('status_text', 128, true),
          varchar('currency', 3),
          cents('amount_cents', false),
          cents('gross_cents'),
          cents('net_cents'),
          cents('fees_cents'),
          cents('discount_cents'),
          cents('shipping_cents'),
          cents('paid_cents'),
          { ...cents('refunded_cents', false), default: 0 },
          { name: 'amount_mismatch', type: 'boolean', isNullable: false, default: no },
          text('pix_payload'),
          text('pix_image'),
          varchar('billet_line', 64, true),
          varchar('billet_barcode', 64, true),
          text('billet_url'),
          text('payment_url'),
          varchar('due_date', 10, true),
          { ...integer('installments'), default: 1 },
          varchar('card_brand', 32, true),
          varchar('card_last4', 4, true),
          text('failure_reason'),
          text('raw_snapshot'),
          timestamp('created_at'),
          timestamp('updated_at'),
          integer('version'),
        ],
        indices: [new TableIndex({ name: 'IDX_invoice_payments_invoice_order', columnNames: ['order_id'] })],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: HISTORY,
        columns: [
          { ...varchar('id', 36), isPrimary: true },
          varchar('invoice_record_id', 36),
          integer('from_code', true),
          integer('to_code'),
          varchar('status_text', 128, true),
          varchar('source', 16),
          { name: 'applied', type: 'boolean', isNullable: false },
          varchar('note', 255, true),
          varchar('alert', 32, true),
          timestamp('notified_at', true),
          { ...integer('notify_attempts'), default: 0 },
          text('notify_error'),
          timestamp('created_at'),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_invoice_payments_status_history_invoice',
            columnNames: ['invoice_record_id'],
          }),
          new TableIndex({
            name: 'IDX_invoice_payments_status_history_notify',
            columnNames: ['notified_at'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(HISTORY, true, true, true);
    await queryRunner.dropTable(INVOICE, true, true, true);
  }
}
