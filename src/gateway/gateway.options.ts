import type { LoggerService } from '@nestjs/common';
import { isHttpUrl, isNonBlank } from './dto/validators';
import { GatewayValidationError, type GatewayResponseError } from './errors';
import type { WireProfileOverrides } from './wire-profile';

/** Injection token of `GatewayClientOptions`. */
export const GATEWAY_CLIENT_OPTIONS = 'INVOICE_PAYMENTS_GATEWAY_CLIENT_OPTIONS';

/** Injection token of the `GatewayConnectionSource` a client reads its connection from (optional: else its options). */
export const GATEWAY_CONNECTION_SOURCE = 'INVOICE_PAYMENTS_GATEWAY_CONNECTION_SOURCE';

/** Injection token of the `GatewayCallObserver` told of every call (optional: without one, calls go unobserved). */
export const GATEWAY_CALL_OBSERVER = 'INVOICE_PAYMENTS_GATEWAY_CALL_OBSERVER';

/**
 * Told of every call the gateway makes to the service (its retries included): the module hands it observability's
 * observer, so the gateway knows nothing of metrics or traces. `work` runs inside `observe`, so that a span the
 * observer opens is the active one while the request is sent; the observer hands its result or error back unchanged.
 */
export interface GatewayCallObserver {
  observe<T>(call: { baseUrl: string; operation: string }, work: () => Promise<T>): Promise<T>;
}

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

/** What a {@link GatewayConnectionSource} gives before every call: the connection and wire-profile overrides. */
export interface ResolvedGatewayConfig extends GatewayConnection {
  /** Laid over the options' `profile` (the admin settings' saved `wireProfile`). */
  profile?: WireProfileOverrides | null;
}

/**
 * The connection in force, asked before every call, so a token changed at runtime applies without a restart: the
 * module's is the admin settings (`InvoicePaymentsSettingsService`). Without one, a client calls with its options.
 */
export interface GatewayConnectionSource {
  gatewayConfig(): Promise<ResolvedGatewayConfig>;
}

/** Resolves a host name to every address it has (the shape of `dns.promises.lookup(host, { all: true })`). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Options of `GatewayClient`; defaults and meaning in `docs/configuration.md` (`gateway.*`). */
export interface GatewayClientOptions extends GatewayConnection {
  /** Timeouts in ms (defaults: create 30 s, reads 10 s, others 15 s): a read's per attempt, a write's for the whole call. */
  timeouts?: { defaultMs?: number; createMs?: number; readMs?: number };
  /** Retries of safe requests only (reads, token checks, never sent); `maxAttempts` counts the first. */
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
  /** Overrides of `DEFAULT_WIRE_PROFILE`, any part at any depth: the conventions the spec leaves open. */
  profile?: WireProfileOverrides;
  /** Where the client logs (default: Nest `Logger` with context `GatewayClient`). Secrets never reach it. */
  logger?: LoggerService;
  /** Host name resolution for the resend destination check (default `dns.promises.lookup`, all addresses). */
  lookup?: HostLookup;
  /** Called when an answer carried an amount that cannot be real (e.g. `refunds.total: -50`); it was refused. */
  onImplausibleAmount?: (error: GatewayResponseError) => void;
}

/** The connection checked before use (a bad one: `GatewayValidationError`, nothing sent); no trailing slash. */
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
    const detail = `invalid configuration: ${Object.keys(fields).join(', ')}; nothing was sent`;
    throw new GatewayValidationError({ operation, sent: false }, detail, fields);
  }
  const baseUrl = String(source.baseUrl).replace(/\/+$/, '');
  return { baseUrl, accessToken: source.accessToken ?? '', mode: source.mode as GatewayMode };
}
