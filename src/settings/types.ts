import {
  SETTING_LIST,
  type InvoicePaymentsMode,
  type InvoicePaymentsSettingsValues,
  type SettingName,
} from '../core/settings.schema';

export type SecretSettingName = 'accessToken' | 'webhookToken';
export const SECRET_SETTINGS: readonly SecretSettingName[] = ['accessToken', 'webhookToken'];

/** Defaults of the settings, from the module options; what they leave out comes from {@link BUILT_IN_DEFAULTS}. */
export type InvoicePaymentsSettingsDefaults = Partial<InvoicePaymentsSettingsValues>;

/** Built-in defaults for settings neither the options nor the saved row give (each setting's declared default). */
export const BUILT_IN_DEFAULTS = Object.fromEntries(
  SETTING_LIST.map(([name, declaration]) => [name, declaration.default]),
) as InvoicePaymentsSettingsValues;

/** What the module runs with right now: defaults overridden by the saved row. */
export interface EffectiveSettings extends InvoicePaymentsSettingsValues {
  /** The settings row these came from (`default` for now: one row per store later). */
  storeId: string;
  /** Settings whose value comes from the saved row rather than the defaults. */
  overridden: SettingName[];
  /** When the row was last saved; `null` when nothing was ever saved. */
  updatedAt: Date | null;
}

/** How a secret is shown by the admin API: whether it is set, never its value. */
export interface MaskedSecret {
  set: boolean;
  /** Last four characters, only for secrets of 16 characters or more (`"…abcd"`); otherwise `null`. */
  last4: string | null;
  /** `saved` (admin), `options` (module options) or `null` when unset. */
  source: 'saved' | 'options' | null;
}

/** The settings as the admin API returns them: secrets masked. */
export type MaskedSettings = Omit<EffectiveSettings, SecretSettingName> &
  Record<SecretSettingName, MaskedSecret>;

/** What the credential check says of one operation of the service. */
export interface CredentialCheckOperation {
  /** Gateway operation, e.g. `listInvoices`. */
  operation: string;
  /** Scope it needs (A5, A10); `null` for the credential status itself. */
  scope: string | null;
  result: 'ok' | 'unauthorized' | 'missing_scope' | 'error' | 'not_available';
  /**
   * `call`: the operation was called; `scopes`: judged from the scope list the credential status reported (write
   * operations); `probe`: judged by the wire profile's probe for the scope (an invalid request the service refused
   * as invalid: the token got past authentication and scope), when the service reports no scopes.
   */
  checkedBy: 'call' | 'scopes' | 'probe';
  /** What went wrong, for `error` (never a secret). */
  message?: string;
}

export interface CredentialCheckReport {
  /** Every operation is `ok` (or `not_available`). */
  ok: boolean;
  mode: InvoicePaymentsMode;
  baseUrl: string;
  /** Scopes the service reported for the credential; `null` when it could not be read. */
  scopes: string[] | null;
  operations: CredentialCheckOperation[];
}
