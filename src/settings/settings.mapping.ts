import {
  PAYMENT_METHODS,
  SETTING_LIST,
  type InvoicePaymentsSettingsValues,
  type SETTINGS,
  type SettingName,
} from '../options/settings.schema';
import type { HostLookup } from '../gateway/gateway.options';
import type { PaymentMethod } from '../gateway/types';
import { publicHttpsProblem } from '../gateway/webhook-destination';
import { checkWireProfileData } from '../gateway/wire-profile.check';
import type { InvoicePaymentsSettingsRecord } from './settings.entity';

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

/** The admin page's settings form, as the settings are declared (JSON drops an `undefined` key). */
export function settingFields() {
  return SETTING_LIST.map(([name, d]) => {
    const fill = (help: string) => help.replace('{min}', String(d.min)).replace('{max}', String(d.max));
    return {
      name,
      ...(d.kind === 'secret' ? { secret: true } : { type: d.kind as string }),
      advanced: d.advanced,
      min: d.min,
      max: d.max,
      options: d.kind === 'methods' ? PAYMENT_METHODS : undefined,
      label: d.label,
      help: { en: fill(d.help.en), pt: fill(d.help.pt) },
    };
  });
}

/**
 * The checks of a settings change that need the current settings or DNS; problems by field. In production, both
 * URLs must be https to public addresses; a stored token never follows a new `baseUrl`, so the admin key cannot walk
 * it out to an address of its holder's choice.
 */
export async function checkSettingsUpdate(
  body: SettingsUpdate,
  current: EffectiveSettings,
  lookup?: HostLookup,
): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  const mode = body.mode ?? current.mode;
  if (mode === 'production') {
    for (const field of ['baseUrl', 'publicWebhookUrl'] as const) {
      const url = body[field] !== undefined ? body[field] : current[field];
      if (typeof url !== 'string') continue;
      const problem = await publicHttpsProblem(url, lookup);
      if (problem) (errors[field] ??= []).push(`${field} ${problem} (production mode)`);
    }
  }
  const newHost = typeof body.baseUrl === 'string' && originOf(body.baseUrl) !== originOf(current.baseUrl);
  if (newHost && body.accessToken === undefined && current.accessToken) {
    (errors.accessToken ??= []).push(
      'is required with a new baseUrl (or null to clear it): the stored token is never sent to a new host',
    );
  }
  if (body.wireProfile) Object.assign(errors, checkWireProfileData(body.wireProfile));
  return errors;
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
