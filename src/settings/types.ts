import {
  SETTING_LIST,
  type InvoicePaymentsMode,
  type InvoicePaymentsSettingsValues,
  type SettingName,
} from '../core/settings.schema';

export type SecretSettingName = 'accessToken' | 'webhookToken';
export const SECRET_SETTINGS: readonly SecretSettingName[] = ['accessToken', 'webhookToken'];

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

/** A secret as the admin API shows it: never its value. */
export interface MaskedSecret {
  set: boolean;
  /** `"…abcd"` only for secrets of 16 characters or more. */
  last4: string | null;
  source: 'saved' | 'options' | null;
}

/** The settings as the admin API returns them: secrets masked. */
export type MaskedSettings = Omit<EffectiveSettings, SecretSettingName> &
  Record<SecretSettingName, MaskedSecret>;

/** What the credential check says of one operation of the service. */
export interface CredentialCheckOperation {
  operation: string;
  /** `null` for the credential status itself. */
  scope: string | null;
  result: 'ok' | 'unauthorized' | 'missing_scope' | 'error' | 'not_available';
  /** `scopes`: judged from the reported scope list; `probe`: by the wire profile's invalid request for the scope. */
  checkedBy: 'call' | 'scopes' | 'probe';
  message?: string;
}

export interface CredentialCheckReport {
  ok: boolean;
  mode: InvoicePaymentsMode;
  baseUrl: string;
  /** `null` when they could not be read. */
  scopes: string[] | null;
  operations: CredentialCheckOperation[];
}
