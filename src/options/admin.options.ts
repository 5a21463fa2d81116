import type { CanActivate, Type } from '@nestjs/common';
import type { AdminAuthThrottleOptions } from '../settings/auth-throttle';
import type { EncryptionKeyOptions } from '../settings/secret-box';

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
