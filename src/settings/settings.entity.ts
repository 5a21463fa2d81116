import { Column, Entity, PrimaryColumn, VersionColumn } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';

/**
 * Settings saved by the admin (one row per store): a `null` column means the module options' default, secrets are
 * `SecretBox` values. `InvoicePaymentsSettingsService` maps it to the settings in force.
 */
@Entity('invoice_payments_settings')
export class InvoicePaymentsSettingsRecord {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'base_url', type: 'text', nullable: true })
  baseUrl!: string | null;

  @Column({ name: 'access_token_enc', type: 'text', nullable: true })
  accessTokenEnc!: string | null;

  @Column({ name: 'webhook_token_enc', type: 'text', nullable: true })
  webhookTokenEnc!: string | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  mode!: 'sandbox' | 'production' | null;

  @Column({ name: 'ecommerce_store_id', type: 'integer', nullable: true })
  ecommerceStoreId!: number | null;

  @Column({ name: 'ecommerce_checkout', type: 'integer', nullable: true })
  ecommerceCheckout!: number | null;

  /** Comma-separated methods (`pix,billet,card`). */
  @Column({ name: 'enabled_methods', type: 'varchar', length: 64, nullable: true })
  enabledMethods!: string | null;

  @Column({ name: 'due_days', type: 'integer', nullable: true })
  dueDays!: number | null;

  @Column({ name: 'max_installments', type: 'integer', nullable: true })
  maxInstallments!: number | null;

  @Column({ name: 'public_webhook_url', type: 'text', nullable: true })
  publicWebhookUrl!: string | null;

  @Column({ name: 'order_url_template', type: 'text', nullable: true })
  orderUrlTemplate!: string | null;

  @Column({ name: 'store_url_template', type: 'text', nullable: true })
  storeUrlTemplate!: string | null;

  @Column({ name: 'time_zone', type: 'varchar', length: 64, nullable: true })
  timeZone!: string | null;

  /** `WireProfileData` as JSON. */
  @Column({ name: 'wire_profile', type: 'text', nullable: true })
  wireProfile!: string | null;

  /** Prefix of every invoice referrer, made once at random: two stores on one account never share one. */
  @Column({ name: 'referrer_namespace', type: 'varchar', length: 16, nullable: true })
  referrerNamespace!: string | null;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('updated_at')
  updatedAt!: Date;

  /** A save that read an older version retries instead of overwriting another admin's change. */
  @VersionColumn()
  version!: number;
}
