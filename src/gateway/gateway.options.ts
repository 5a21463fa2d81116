import type { LoggerService } from '@nestjs/common';
import type { DEFAULT_LIST_QUERY, DEFAULT_PATHS } from './constants';
import type { TrackingParams } from './types';

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

/** Path of each operation relative to `baseUrl`. */
export type GatewayPaths = Record<keyof typeof DEFAULT_PATHS, string>;

/** Query parameter names of `listInvoices`. */
export type GatewayListQueryNames = Record<keyof typeof DEFAULT_LIST_QUERY, string>;

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
  resolveConfig?: () => Promise<GatewayConnection>;
  /** Per-request timeouts in ms (defaults: create 30 s, reads 10 s, others 15 s). */
  timeouts?: { defaultMs?: number; createMs?: number; readMs?: number };
  /**
   * Retries of safe requests only (reads, webhook validation, requests that never left). `maxAttempts` counts the
   * first attempt (default 3); backoff starts at `initialDelayMs` (200) and is capped at `maxDelayMs` (5000), with
   * jitter; a 429's `Retry-After` is honoured when not above `maxRetryAfterMs` (10000), else the error is thrown.
   */
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
  /** Path overrides (A5, A7, A9, A10). */
  paths?: Partial<GatewayPaths>;
  /** `payment.type` values (A3). */
  paymentTypes?: { pix: number; billet: number; card: number };
  /** `payment.product_type` values (A3). */
  productTypes?: { physical: number; digital: number };
  /** Query parameter names of `listInvoices` (A7). */
  listQuery?: Partial<GatewayListQueryNames>;
  /** Builds the tracking body (A9 by default). */
  trackingBody?: (params: TrackingParams) => unknown;
  /** Where the client logs (default: Nest `Logger` with context `GatewayClient`). Secrets never reach it. */
  logger?: LoggerService;
  /** Host name resolution for the resend destination check (default `dns.promises.lookup`, all addresses). */
  lookup?: HostLookup;
}
