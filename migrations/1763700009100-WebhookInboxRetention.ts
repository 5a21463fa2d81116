import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const INBOX = 'invoice_payments_webhook_inbox';
const NAME = 'IDX_invoice_payments_webhook_inbox_done';

/** An index on the inbox's state and finish time: the retention purge deletes old finished rows by it. Portable. */
export class WebhookInboxRetention1763700009100 implements MigrationInterface {
  name = 'WebhookInboxRetention1763700009100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      INBOX,
      new TableIndex({ name: NAME, columnNames: ['state', 'processed_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(INBOX, NAME);
  }
}
