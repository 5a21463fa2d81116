import type { LoggerService } from '@nestjs/common';
import { isHttpUrl, isNonBlank } from './dto/validators';
import { GatewayValidationError, type GatewayResponseError } from './errors';
import type { WireProfileOverrides } from './wire-profile';

/** `sandbox`: tests and the sandbox; `production`: real money (webhook resend refused, §6.6). */
export type GatewayMode = 'sandbox' | 'production';

/** Where the client talks to and with which credential. */
export interface GatewayConnection {
  /** The service's `{base_url}`, e.g. `https://api.example.com/v3` (no trailing slash needed). */
  baseUrl: string;
  /** Bearer token sent on every request (§5.1). Never logged, never in an error. */
  accessToken: string;
  mode: GatewayMode;
}

/** What `resolveConfig` gives before every call: the connection and, optionally, wire-profile overrides. */
export interface ResolvedGatewayConfig extends GatewayConnection {
  /** Laid over the options' `profile` (the admin settings' saved `wireProfile`). */
  profile?: WireProfileOverrides | null;
}

/** Resolves a host name to every address it has (the shape of `dns.promises.lookup(host, { all: true })`). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/**
 * Options of `GatewayClient`. Everything but the connection has a default following `docs/gateway-assumptions.md`;
 * when the real service turns out to differ, change the option, not the code.
 */
export interface GatewayClientOptions extends GatewayConnection {
  /**
   * Called before every operation when set: runtime settings (the admin panel) override `baseUrl`, `accessToken`
   * and `mode` without a restart.
   */
  resolveConfig?: () => Promise<ResolvedGatewayConfig>;
  /** Per-request timeouts in ms (defaults: create 30 s, reads 10 s, others 15 s). */
  timeouts?: { defaultMs?: number; createMs?: number; readMs?: number };
  /**
   * Retries of safe requests only (reads, webhook validation, requests that never left). `maxAttempts` counts the
   * first attempt (default 3); backoff starts at `initialDelayMs` (200) and is capped at `maxDelayMs` (5000), with
   * jitter; a 429's `Retry-After` is honoured when not above `maxRetryAfterMs` (10000), else the error is thrown.
   */
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
  /**
   * The wire conventions where the spec says "not shown" (paths, list answers, lookups, refund and tracking bodies,
   * authentication, webhook payloads, `payment.type` codes): overrides of `DEFAULT_WIRE_PROFILE`, any part, any
   * depth. See `docs/gateway-assumptions.md`.
   */
  profile?: WireProfileOverrides;
  /** Where the client logs (default: Nest `Logger` with context `GatewayClient`). Secrets never reach it. */
  logger?: LoggerService;
  /** Host name resolution for the resend destination check (default `dns.promises.lookup`, all addresses). */
  lookup?: HostLookup;
  /**
   * Called when an answer carried an amount that cannot be real (negative, non-finite or absurd, e.g.
   * `refunds.total: -50`): the answer was refused as unreadable and nothing of it is used. The module raises an
   * `implausible_amount` alert here.
   */
  onImplausibleAmount?: (error: GatewayResponseError) => void;
}

/**
 * A connection from the options or from `resolveConfig()` (possibly an admin form) checked before use: a bad one is a
 * `GatewayValidationError` naming the setting, with nothing sent. The base URL loses its trailing slashes.
 */
export function checkConnection(
  source: Partial<GatewayConnection> | null | undefined,
  operation: string,
  needsToken: boolean,
): GatewayConnection {
  const fields: Record<string, string[]> = {};
  if (!isHttpUrl(source?.baseUrl)) fields.baseUrl = ['must be an absolute http(s) URL'];
  if (needsToken && !isNonBlank(source?.accessToken)) fields.accessToken = ['is required'];
  if (source?.mode !== 'sandbox' && source?.mode !== 'production')
    fields.mode = ['must be sandbox or production'];
  if (!source || Object.keys(fields).length > 0) {
    const names = Object.keys(fields).join(', ');
    throw new GatewayValidationError(
      { operation, sent: false },
      `invalid configuration: ${names}; nothing was sent`,
      fields,
    );
  }
  const baseUrl = String(source.baseUrl).replace(/\/+$/, '');
  return { baseUrl, accessToken: source.accessToken ?? '', mode: source.mode as GatewayMode };
}
