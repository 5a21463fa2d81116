import { Column, Entity, PrimaryColumn, VersionColumn } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';

/** Id of the one settings row used until settings are per store. */
export const DEFAULT_SETTINGS_ID = 'default';

/**
 * Settings saved by the store's admin, one row per store. A `null` column means "use the module options' default".
 * Secrets are stored only as `v1:<keyId>:<iv>:<tag>:<data>` (AES-256-GCM, see `SecretBox`): the key id sits in
 * each value so keys can rotate row by row.
 */
@Entity('invoice_payments_settings')
export class InvoicePaymentsSettingsRecord {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'base_url', type: 'text', nullable: true })
  baseUrl!: string | null;

  /** Encrypted access token. */
  @Column({ name: 'access_token_enc', type: 'text', nullable: true })
  accessTokenEnc!: string | null;

  /** Encrypted merchant webhook token. */
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

  /** Wire-profile overrides saved by the admin, as JSON (`WireProfileData`). */
  @Column({ name: 'wire_profile', type: 'text', nullable: true })
  wireProfile!: string | null;

  /**
   * This installation's prefix of every invoice referrer (`<namespace>:<reference>-<attempt>`): made once at random
   * and kept, so two stores on one service account never share a referrer. Never changed by the admin API; the
   * `checkout.referrerNamespace` option wins over it.
   */
  @Column({ name: 'referrer_namespace', type: 'varchar', length: 16, nullable: true })
  referrerNamespace!: string | null;

  @TimestampColumn('created_at')
  createdAt!: Date;

  @TimestampColumn('updated_at')
  updatedAt!: Date;

  /** Optimistic lock: a save that read an older version retries instead of overwriting another admin's change. */
  @VersionColumn()
  version!: number;
}
