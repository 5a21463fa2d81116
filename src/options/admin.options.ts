import type { CanActivate, Type } from '@nestjs/common';

/** Route prefix of the admin API unless `admin.prefix` names another. */
export const DEFAULT_ADMIN_PREFIX = 'admin/invoice-payments';

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

/**
 * Keys that encrypt the stored secrets (access token, merchant webhook token).
 *
 * Each key is 32 random bytes written as base64, base64url or hex (`openssl rand -base64 32`). To rotate, add a new
 * key, make it `currentKeyId`, keep the old one until `rotateSecrets()` has re-encrypted every row, then remove it.
 */
export interface EncryptionKeyOptions {
  /** Key id → key. Ids are 1-32 characters of `A-Z a-z 0-9 _ -`; they are stored beside each value. */
  keys: Record<string, string | Buffer>;
  /** Id of the key new values are encrypted with. May be omitted when there is exactly one key. */
  currentKeyId?: string;
}

/** How failed admin authentications are limited (`admin.authThrottle`). */
export interface AdminAuthThrottleOptions {
  /** Failed authentications a client may make per window before its failures are slowed (429). Default 10. */
  maxFailures?: number;
  /** Length of the window, in ms. Default 60 000. */
  windowMs?: number;
  /** Clients remembered at most (memory stays bounded); the least recently started window is forgotten. Default 10 000. */
  maxClients?: number;
  /** How long the answer to a failure past the limit is held before its 429, in ms. Default 1000. */
  slowdownMs?: number;
  /** Answers held at once, all clients together (past it, a 429 goes out at once: a flood holds little). Default 100. */
  maxHeld?: number;
}
