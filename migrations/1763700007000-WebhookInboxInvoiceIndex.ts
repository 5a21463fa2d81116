import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const INBOX = 'invoice_payments_webhook_inbox';
const NAME = 'IDX_invoice_payments_webhook_inbox_invoice';

/**
 * An index on the inbox's invoice number and state: processing asks for the pending deliveries of one invoice
 * (earlier ones, or the ones one confirmation answers) on every delivery, which scanned the whole inbox and slowed
 * down as a backlog grew. Portable: SQLite and PostgreSQL.
 */
export class WebhookInboxInvoiceIndex1763700007000 implements MigrationInterface {
  name = 'WebhookInboxInvoiceIndex1763700007000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      INBOX,
      new TableIndex({ name: NAME, columnNames: ['gateway_id', 'state'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(INBOX, NAME);
  }
}
