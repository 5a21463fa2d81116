import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';

const INBOX = 'invoice_payments_webhook_inbox';

const varchar = (name: string, length: number, nullable = true): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
// Timestamps are ISO-8601 text, as everywhere in the module (`src/persistence/columns.ts`).
const timestamp = (name: string, nullable = true): TableColumnOptions => varchar(name, 32, nullable);

/**
 * The webhook inbox (`src/webhooks/webhook-inbox.ts`): every authenticated delivery, stored before it is
 * acknowledged. QueryRunner schema API only, so the same migration runs on PostgreSQL and SQLite.
 */
export class WebhookInbox1763700001000 implements MigrationInterface {
  name = 'WebhookInbox1763700001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: INBOX,
        columns: [
          { ...varchar('id', 36, false), isPrimary: true },
          // Unique: a retried or duplicated delivery is recognized by the database itself.
          { ...varchar('dedupe_key', 160, false), isUnique: true },
          varchar('event', 64),
          varchar('delivery_id', 128),
          varchar('webhook_id', 128),
          varchar('gateway_id', 128),
          varchar('referrer', 160),
          { name: 'status_code', type: 'integer', isNullable: true },
          varchar('sent_at', 32),
          { name: 'payload', type: 'text', isNullable: false },
          varchar('state', 16, false),
          { name: 'attempts', type: 'integer', isNullable: false, default: 0 },
          timestamp('next_attempt_at'),
          timestamp('locked_until'),
          { name: 'last_error', type: 'text', isNullable: true },
          varchar('outcome', 255),
          varchar('invoice_record_id', 36),
          timestamp('received_at', false),
          timestamp('processed_at'),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_invoice_payments_webhook_inbox_due',
            columnNames: ['state', 'next_attempt_at'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(INBOX, true, true, true);
  }
}
