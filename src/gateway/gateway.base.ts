import { HttpService } from '@nestjs/axios';
import { Logger } from '@nestjs/common';
import { DEFAULT_TIMEOUTS } from './constants';
import { lostOr } from './error.mapper';
import { GatewayResponseError, GatewayUnsupportedError } from './errors';
import { checkConnection, type GatewayClientOptions, type GatewayConnection } from './gateway.options';
import { GatewayTransport, HttpAnswer, RequestPlan } from './gateway.transport';
import { axiosExchange, nodeExchange, proxyConfigured } from './http-exchange';
import { PayloadReader } from './payload.reader';
import { DEFAULT_WIRE_PROFILE, mergeWireProfile, valueAt, WireProfile } from './wire-profile';

/** `key=value` reference of an invoice, from input (the value at `path`) that may not be valid yet. */
export function ref(key: string, input: unknown, path?: string): string | undefined {
  const value = path === undefined ? input : valueAt(input, path);
  return typeof value === 'string' || typeof value === 'number' ? `${key}=${value}` : undefined;
}

export function unsupported(operation: string, what: string): never {
  throw new GatewayUnsupportedError(
    { operation },
    `the wire profile says the service has no ${what}; nothing was sent`,
  );
}

export type Planned = Omit<RequestPlan, 'operation' | 'invoiceRef'>;
export type CallContext = { conn: GatewayConnection; profile: WireProfile };

export abstract class GatewayClientBase {
  protected readonly transport: GatewayTransport;
  protected readonly timeouts: Required<NonNullable<GatewayClientOptions['timeouts']>>;
  private readonly baseProfile: WireProfile;
  /** Effective profiles by the runtime overrides they came from (settings are cached objects). */
  private readonly profiles = new WeakMap<object, WireProfile>();

  constructor(
    protected readonly options: GatewayClientOptions,
    http?: HttpService,
  ) {
    const exchange = http || proxyConfigured() ? axiosExchange(http) : nodeExchange();
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const logger = options.logger ?? new Logger('GatewayClient');
    this.transport = new GatewayTransport(exchange, logger, options.retry, this.timeouts);
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
  }

  /** The connection and wire profile for this call: `resolveConfig()`, else the options. */
  protected async context(operation: string, needsToken = true, check = true): Promise<CallContext> {
    const resolve = this.options.resolveConfig;
    const source = resolve ? await resolve() : this.options;
    let profile = this.baseProfile;
    if (resolve && source?.profile) {
      profile = this.profiles.get(source.profile) ?? mergeWireProfile(profile, source.profile);
      this.profiles.set(source.profile, profile);
    }
    return { conn: check ? checkConnection(source, operation, needsToken) : source, profile };
  }

  /** One request, its answer read; an unreadable 2xx to a write changing an invoice is an unknown outcome. */
  protected async call<T>(
    { operation, invoiceRef }: { operation: string; invoiceRef?: string },
    plan: (profile: WireProfile, conn: GatewayConnection) => Planned | Promise<Planned>,
    read: (r: PayloadReader, answer: HttpAnswer, profile: WireProfile) => T,
    needsToken = true,
    ctx?: CallContext,
  ): Promise<T> {
    const { conn, profile } = ctx ?? (await this.context(operation, needsToken));
    const planned = await plan(profile, conn);
    const answer = await this.transport.send(conn, { operation, invoiceRef, ...planned });
    try {
      return this.read(operation, invoiceRef, (r) => read(r, answer, profile));
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      const base = { operation, invoiceRef, httpStatus: answer.status, sent: true };
      throw lostOr({ operation, ...planned }, err.detail, 'unreadable_response', err, base);
    }
  }

  /** Runs a reader: its errors get the invoice reference, an implausible amount goes to `onImplausibleAmount`. */
  protected read<T>(operation: string, invoiceRef: string | undefined, reader: (r: PayloadReader) => T): T {
    try {
      return reader(new PayloadReader(operation));
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      const ctx = { operation, invoiceRef, sent: true };
      const error = invoiceRef ? new GatewayResponseError(ctx, err.detail, err.implausibleAmount) : err;
      if (error.implausibleAmount) {
        try {
          this.options.onImplausibleAmount?.(error);
        } catch {
          // The answer is refused either way; the listener's failure is its own.
        }
      }
      throw error;
    }
  }
}
