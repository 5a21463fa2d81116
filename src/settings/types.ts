import type { CanActivate, Type } from '@nestjs/common';
import {
  SETTING_LIST,
  type InvoicePaymentsMode,
  type InvoicePaymentsSettingsValues,
  type SettingName,
} from '../core/settings.schema';
import type { EncryptionKeyOptions } from './secret-box';
import type { AdminAuthThrottleOptions } from './auth-throttle';

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

/**
 * Admin API options (`admin` in the module options).
 *
 * Without `guard`, every admin request needs `Authorization: Bearer <adminKey>`; without either, the admin API
 * answers 401 to everything.
 */
export interface InvoicePaymentsAdminOptions {
  /** Route prefix of the admin API. Default `admin/invoice-payments`. */
  prefix?: string;
  /**
   * The host's own guard. Replaces the admin-key guard entirely. A class is built by the module, its dependencies
   * from the app's global modules; to use the host's own instance, pass it (`forRootAsync({ inject: [StaffGuard],
   * useFactory: (guard) => ({ admin: { guard } }) })`).
   */
  guard?: Type<CanActivate> | CanActivate;
  /** Key admin requests must carry as a bearer token (at least 16 characters). */
  adminKey?: string;
  /** Keys encrypting stored secrets; default from `INVOICE_PAYMENTS_ENCRYPTION_KEYS`/`_KEY_ID`. */
  encryption?: EncryptionKeyOptions;
  /** How long effective settings are cached, in ms (default 5000). A save on this instance clears it at once. */
  settingsCacheTtlMs?: number;
  /**
   * Serve the admin web page at `GET <prefix>/` (default `true`). The page and its scripts are public files; the
   * API they call is guarded as above.
   */
  ui?: boolean;
  /**
   * Slows failed authentications per client (default 10 a minute): past the limit a failure is answered 429 with
   * `Retry-After`, held `slowdownMs` first. The right key (or what the host's guard accepts) is never refused by it.
   * Applies to the host's guard too (its 401/403 count as failures).
   */
  authThrottle?: AdminAuthThrottleOptions;
}

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
