import { Column, Entity, MigrationInterface, PrimaryColumn, QueryRunner } from 'typeorm';

/** The host's own order: what the store had before installing the payment module. */
@Entity('orders')
export class Order {
  @PrimaryColumn('varchar', { length: 64 })
  id!: string;

  /** Cents. */
  @Column('integer')
  total!: number;

  @Column('varchar', { length: 32, default: 'awaiting' })
  paymentStatus!: string;
}

export class CreateOrders1700000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "orders" ("id" varchar(64) PRIMARY KEY NOT NULL, "total" integer NOT NULL, ` +
        `"paymentStatus" varchar(32) NOT NULL DEFAULT 'awaiting')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "orders"`);
  }
}
