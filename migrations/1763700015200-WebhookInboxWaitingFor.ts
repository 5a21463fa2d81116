import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * What a pending inbox entry waits for, in a column of its own: `lookup` (its invoice's next turn under the lookup
 * pace) or `record` (the service knows the invoice, no record here holds it yet); null when it waits for nothing but
 * its due time. It was told before by the start of `last_error`. Portable: SQLite and PostgreSQL.
 */
export class WebhookInboxWaitingFor1763700015200 implements MigrationInterface {
  name = 'WebhookInboxWaitingFor1763700015200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'invoice_payments_webhook_inbox',
      new TableColumn({ name: 'waiting_for', type: 'varchar', length: '16', isNullable: true }),
    );
    // Entries already waiting for a record, as the text said it.
    await queryRunner.query(
      `UPDATE invoice_payments_webhook_inbox SET waiting_for = 'record' ` +
        `WHERE state = 'pending' AND last_error LIKE 'no invoice record yet%'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('invoice_payments_webhook_inbox', 'waiting_for');
  }
}
