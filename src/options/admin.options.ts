import type { CanActivate, Type } from '@nestjs/common';
import type { AdminAuthThrottleOptions } from '../settings/auth-throttle';
import type { EncryptionKeyOptions } from '../settings/secret-box';

/** The admin API (docs/admin.md): without `guard`, requests need `Bearer <adminKey>`; without either, 401. */
export interface InvoicePaymentsAdminOptions {
  /** Route prefix of the admin API. Default `admin/invoice-payments`. */
  prefix?: string;
  /** The host's own guard instead of the admin key; a class is built with the app's global modules. */
  guard?: Type<CanActivate> | CanActivate;
  /** Key admin requests must carry as a bearer token (at least 16 characters). */
  adminKey?: string;
  /** Keys encrypting stored secrets; default from `INVOICE_PAYMENTS_ENCRYPTION_KEYS`/`_KEY_ID`. */
  encryption?: EncryptionKeyOptions;
  /** How long effective settings are cached, in ms (default 5000). A save on this instance clears it at once. */
  settingsCacheTtlMs?: number;
  /** Serve the admin web page at `GET <prefix>/` (default `true`); the API it calls is guarded. */
  ui?: boolean;
  /** Slows failed authentications per client (default 10 a minute, then 429); the right key is never refused. */
  authThrottle?: AdminAuthThrottleOptions;
}
