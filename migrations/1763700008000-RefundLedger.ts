import { MigrationInterface, QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';

const REFUNDS = 'invoice_payments_refund';

/**
 * Refunds exactly once (issue 21): the refund ledger (`src/refunds/refund.entity.ts`), a row per refund written
 * before its request leaves; a unique `in_flight_invoice_id` keeps one refund in flight per invoice (unique columns
 * allow many NULLs on both databases), a unique `(invoice_record_id, idempotency_key)` makes a repeated key the same
 * refund. QueryRunner schema API only: the same migration runs on PostgreSQL and SQLite.
 */
export class RefundLedger1763700008000 implements MigrationInterface {
  name = 'RefundLedger1763700008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: REFUNDS,
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'invoice_record_id', type: 'varchar', length: '36' },
          { name: 'in_flight_invoice_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'amount_cents', type: 'bigint' },
          { name: 'requested_by', type: 'varchar', length: '128' },
          { name: 'idempotency_key', type: 'varchar', length: '128' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'baseline_cents', type: 'bigint', isNullable: true },
          { name: 'settles_at', type: 'varchar', length: '32', isNullable: true },
          { name: 'next_check_at', type: 'varchar', length: '32', isNullable: true },
          { name: 'checks', type: 'integer' },
          { name: 'reason', type: 'text', isNullable: true },
          { name: 'alerted', type: 'boolean' },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'updated_at', type: 'varchar', length: '32' },
          { name: 'settled_at', type: 'varchar', length: '32', isNullable: true },
        ],
        uniques: [
          new TableUnique({
            name: 'UQ_invoice_payments_refund_in_flight',
            columnNames: ['in_flight_invoice_id'],
          }),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_invoice_payments_refund_key',
            columnNames: ['invoice_record_id', 'idempotency_key'],
            isUnique: true,
          }),
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(REFUNDS, true, true, true);
  }
}
