import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/** The admin settings' saved wire-profile overrides (JSON text; `null`: the module options' profile). Portable. */
export class SettingsWireProfile1763700004000 implements MigrationInterface {
  name = 'SettingsWireProfile1763700004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'invoice_payments_settings',
      new TableColumn({ name: 'wire_profile', type: 'text', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('invoice_payments_settings', 'wire_profile');
  }
}
