import {
  PAYMENT_METHODS,
  SECRET_SETTINGS,
  SETTING_LIST,
  type InvoicePaymentsSettingsValues,
  type SecretSettingName,
  type SettingName,
} from '../options/settings.schema';
import type { PaymentMethod } from '../gateway/types';
import type { SecretBox } from './secret-box';
import type { InvoicePaymentsSettingsRecord } from './settings.entity';

// How the settings sit in their row: a column a setting, secrets encrypted, the rest as text.

/** Absent: left as it is; `null`: back to the module options' default. */
export type SettingsUpdate = { [K in SettingName]?: InvoicePaymentsSettingsValues[K] | null };

export const secretColumn = (name: SecretSettingName) => `${name}Enc` as const;

/** Bound to a secret's ciphertext: the value only decrypts in its own row and column. */
export const secretContext = (rowId: string, name: SecretSettingName) =>
  `invoice_payments_settings:${rowId}:${name}`;

/** Kinds kept as is in the row's column of the setting's name. */
const COLUMN_KINDS: readonly string[] = ['mode', 'int', 'url', 'text'];
const COLUMN_SETTINGS = SETTING_LIST.filter(([, d]) => COLUMN_KINDS.includes(d.kind)).map(([n]) => n);

/** Writes a change into the row, secrets excluded. */
export function applyUpdate(row: InvoicePaymentsSettingsRecord, update: SettingsUpdate): void {
  const columns = row as unknown as Record<string, unknown>;
  for (const name of COLUMN_SETTINGS) if (update[name] !== undefined) columns[name] = update[name];
  const { ecommerce, enabledMethods, wireProfile } = update;
  if (ecommerce !== undefined) {
    row.ecommerceStoreId = ecommerce?.storeId ?? null;
    row.ecommerceCheckout = ecommerce?.checkout ?? null;
  }
  if (enabledMethods !== undefined) row.enabledMethods = enabledMethods?.join(',') ?? null;
  if (wireProfile !== undefined) row.wireProfile = wireProfile === null ? null : JSON.stringify(wireProfile);
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

/** A column that holds a value: `null` is the default, and a row being made has no value yet (`undefined`). */
const isSet = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/** What a row holds, its secrets decrypted; a `null` column is the default. */
export function savedValues(
  row: InvoicePaymentsSettingsRecord,
  box: SecretBox,
): Partial<InvoicePaymentsSettingsValues> {
  const out: Partial<InvoicePaymentsSettingsValues> = {};
  const columns = row as unknown as Record<string, unknown>;
  for (const name of COLUMN_SETTINGS) {
    if (isSet(columns[name])) (out as Record<string, unknown>)[name] = columns[name];
  }
  for (const name of SECRET_SETTINGS) {
    const value = row[secretColumn(name)];
    if (isSet(value)) out[name] = box.decrypt(value, secretContext(row.id, name));
  }
  if (isSet(row.ecommerceStoreId) && isSet(row.ecommerceCheckout)) {
    out.ecommerce = { storeId: row.ecommerceStoreId, checkout: row.ecommerceCheckout };
  }
  if (isSet(row.enabledMethods)) {
    out.enabledMethods = row.enabledMethods
      .split(',')
      .map((m) => m.trim())
      .filter((m): m is PaymentMethod => (PAYMENT_METHODS as readonly string[]).includes(m));
  }
  if (isSet(row.wireProfile)) out.wireProfile = parseProfile(row.wireProfile);
  return out;
}
