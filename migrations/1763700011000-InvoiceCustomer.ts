import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

const INVOICE = 'invoice_payments_invoice';

/**
 * What the host gave at checkout that a person recognises, so the admin page shows and searches it: the order
 * number (`display_id`), the customer's name and e-mail, and the tax document masked (`***.982.247-**`; the full
 * document is never stored for display). Nullable: older rows have none. Portable: SQLite and PostgreSQL.
 */
export class InvoiceCustomer1763700011000 implements MigrationInterface {
  name = 'InvoiceCustomer1763700011000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns(INVOICE, [
      new TableColumn({ name: 'display_id', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'customer_name', type: 'varchar', length: '160', isNullable: true }),
      new TableColumn({ name: 'customer_email', type: 'varchar', length: '254', isNullable: true }),
      new TableColumn({ name: 'customer_document', type: 'varchar', length: '24', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['customer_document', 'customer_email', 'customer_name', 'display_id']) {
      await queryRunner.dropColumn(INVOICE, name);
    }
  }
}
