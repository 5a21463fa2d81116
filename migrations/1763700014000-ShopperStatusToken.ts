import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const INVOICE = 'invoice_payments_invoice';
/** Each column with its unique index. */
const COLUMNS: ReadonlyArray<[column: string, index: string]> = [
  ['status_token_hash', 'IDX_invoice_payments_invoice_token'],
  ['previous_token_hash', 'IDX_invoice_payments_invoice_previous_token'],
];

/**
 * The shopper's status route: the SHA-256 (hex) of the status token `initiatePayment` handed out last, and of the
 * one before it; each uniquely indexed, so a token names at most one record and is found by an index. Nullable:
 * older rows have no token. Plain `ALTER TABLE` on both dialects: TypeORM's SQLite column changes rebuild the table,
 * which would drop the search's expression indexes.
 */
export class ShopperStatusToken1763700014000 implements MigrationInterface {
  name = 'ShopperStatusToken1763700014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [column, name] of COLUMNS) {
      await queryRunner.query(`ALTER TABLE ${INVOICE} ADD COLUMN ${column} varchar(64)`);
      await queryRunner.createIndex(INVOICE, new TableIndex({ name, columnNames: [column], isUnique: true }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [column, name] of [...COLUMNS].reverse()) {
      await queryRunner.dropIndex(INVOICE, name);
      await queryRunner.query(`ALTER TABLE ${INVOICE} DROP COLUMN ${column}`);
    }
  }
}
