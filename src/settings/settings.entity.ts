/*
 * The settings row and how it maps to the settings in force: the row holds what the admin saved (a `null` column
 * means the module options' default; secrets as `SecretBox` values), `mergeSettings` lays it over the defaults.
 */
import { Column, Entity, PrimaryColumn, VersionColumn } from 'typeorm';
import { TimestampColumn } from '../persistence/columns';
import {
  PAYMENT_METHODS,
  SETTING_LIST,
  type InvoicePaymentsSettingsValues,
  type SETTINGS,
  type SettingName,
} from '../options/settings.schema';
import type { PaymentMethod } from '../gateway/types';
export const DEFAULT_SETTINGS_ID = 'default';

/** Settings saved by the admin (one row per store). */
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

/** Encrypted at rest, never returned by the admin API. */
export type SecretSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K]['kind'] extends 'secret' ? K : never;
}[SettingName];
export const SECRET_SETTINGS = SETTING_LIST.filter(([, d]) => d.kind === 'secret').map(
  ([n]) => n as SecretSettingName,
);

/** Defaults from the module options; what they leave out comes from {@link BUILT_IN_DEFAULTS}. */
export type InvoicePaymentsSettingsDefaults = Partial<InvoicePaymentsSettingsValues>;

export const BUILT_IN_DEFAULTS = Object.fromEntries(
  SETTING_LIST.map(([name, declaration]) => [name, declaration.default]),
) as InvoicePaymentsSettingsValues;

/** What the module runs with right now: defaults overridden by the saved row. */
export interface EffectiveSettings extends InvoicePaymentsSettingsValues {
  storeId: string;
  /** Settings whose value comes from the saved row. */
  overridden: SettingName[];
  /** `null` when nothing was ever saved. */
  updatedAt: Date | null;
}

/** The settings as the admin API returns them: secrets masked, never their value. */
export type MaskedSettings = Omit<EffectiveSettings, SecretSettingName> &
  Record<SecretSettingName, { set: boolean; last4: string | null; source: 'saved' | 'options' | null }>;

/** Absent: left as it is; `null`: back to the module options' default. */
export type SettingsUpdate = { [K in SettingName]?: InvoicePaymentsSettingsValues[K] | null };

export const secretColumn = (name: SecretSettingName) => `${name}Enc` as const;

/** Bound to a secret's ciphertext: the value only decrypts in its own row and column. */
export const secretContext = (rowId: string, name: SecretSettingName) =>
  `invoice_payments_settings:${rowId}:${name}`;

/** Kinds kept as is in the row's column of the setting's name. */
const COLUMN_KINDS: readonly string[] = ['mode', 'int', 'url', 'text'];
const COLUMN_SETTINGS = SETTING_LIST.filter(([, d]) => COLUMN_KINDS.includes(d.kind)).map(([n]) => n);

/** Values saved in a row, secrets excluded. */
function savedValues(row: InvoicePaymentsSettingsRecord): Partial<InvoicePaymentsSettingsValues> {
  const out: Partial<InvoicePaymentsSettingsValues> = {};
  const values = out as Record<string, unknown>;
  const columns = row as unknown as Record<string, unknown>;
  for (const name of COLUMN_SETTINGS) if (columns[name] !== null) values[name] = columns[name];
  if (row.ecommerceStoreId !== null && row.ecommerceCheckout !== null) {
    out.ecommerce = { storeId: row.ecommerceStoreId, checkout: row.ecommerceCheckout };
  }
  if (row.enabledMethods !== null) {
    out.enabledMethods = row.enabledMethods
      .split(',')
      .map((m) => m.trim())
      .filter((m): m is PaymentMethod => (PAYMENT_METHODS as readonly string[]).includes(m));
  }
  if (row.wireProfile !== null) out.wireProfile = parseProfile(row.wireProfile);
  return out;
}

export function applyUpdate(row: InvoicePaymentsSettingsRecord, update: SettingsUpdate): void {
  const set = <K extends SettingName>(
    name: K,
    apply: (v: InvoicePaymentsSettingsValues[K] | null) => void,
  ) => {
    if (update[name] !== undefined) apply(update[name] as InvoicePaymentsSettingsValues[K] | null);
  };
  const columns = row as unknown as Record<string, unknown>;
  for (const name of COLUMN_SETTINGS) set(name, (v) => (columns[name] = v));
  set('ecommerce', (v) => {
    row.ecommerceStoreId = v?.storeId ?? null;
    row.ecommerceCheckout = v?.checkout ?? null;
  });
  set('enabledMethods', (v) => (row.enabledMethods = v === null ? null : v.join(',')));
  set('wireProfile', (v) => (row.wireProfile = v === null ? null : JSON.stringify(v)));
}

/** A saved profile that no longer parses is ignored (the options' profile applies), not fatal. */
function parseProfile(text: string): InvoicePaymentsSettingsValues['wireProfile'] {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export function mergeSettings(
  storeId: string,
  defaults: InvoicePaymentsSettingsDefaults,
  row: InvoicePaymentsSettingsRecord | null,
  secrets: Partial<InvoicePaymentsSettingsValues>,
): EffectiveSettings {
  const saved: Partial<InvoicePaymentsSettingsValues> = row ? { ...savedValues(row), ...secrets } : {};
  const given = Object.entries(defaults).filter(([, v]) => v !== undefined);
  const base: InvoicePaymentsSettingsValues = { ...BUILT_IN_DEFAULTS, ...Object.fromEntries(given) };
  const overridden = (Object.keys(saved) as SettingName[]).filter((k) => saved[k] !== undefined);
  return {
    ...base,
    ...saved,
    enabledMethods: [...(saved.enabledMethods ?? base.enabledMethods)],
    storeId,
    overridden: overridden.sort(),
    updatedAt: row?.updatedAt ?? null,
  };
}

export function maskSettings(settings: EffectiveSettings): MaskedSettings {
  const mask = (name: SecretSettingName): MaskedSettings[SecretSettingName] => {
    const value = settings[name];
    return {
      set: value !== null && value !== '',
      // A short secret would be mostly given away by its last four characters.
      last4: value !== null && value.length >= 16 ? `…${value.slice(-4)}` : null,
      source: value === null ? null : settings.overridden.includes(name) ? 'saved' : 'options',
    };
  };
  return { ...settings, accessToken: mask('accessToken'), webhookToken: mask('webhookToken') };
}
