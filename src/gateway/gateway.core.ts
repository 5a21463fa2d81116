/**
 * What every operation of the client shares: the connection and wire profile of the moment, sending through the
 * transport with the operation's timeout and scope, reading answers through the one normalizer, and turning an
 * unreadable answer to a write into an unknown outcome. {@link GatewayClient} is the public face.
 */
import { HttpService } from '@nestjs/axios';
import { Logger, LoggerService } from '@nestjs/common';
import { DEFAULT_TIMEOUTS, OPERATION_SCOPES } from './constants';
import { GatewayOutcomeUnknownError, GatewayResponseError, GatewayUnsupportedError } from './errors';
import type { GatewayClientOptions, GatewayConnection } from './gateway.options';
import { GatewayTransport, RequestPlan } from './gateway.transport';
import { axiosExchange, nodeExchange, proxyConfigured } from './http-exchange';
import { normalizeInvoice } from './invoice.normalizer';
import { PayloadReader } from './payload.reader';
import type { Invoice } from './types';
import { checkConnection } from './connection';
import {
  DEFAULT_WIRE_PROFILE,
  mergeWireProfile,
  WireProfile,
  WireProfileOverrides,
  WireRequestPlan,
} from './wire-profile';
import { renderTemplate } from './wire-template';

/** `key=value` reference of an invoice for error messages, from input that may not be valid yet. */
export function ref(key: string, value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? `${key}=${value}` : undefined;
}

export function field(input: unknown, ...path: string[]): unknown {
  let node = input;
  for (const key of path)
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

export function unsupported(operation: string, what: string): never {
  throw new GatewayUnsupportedError(
    { operation },
    `the wire profile says the service has no ${what}; nothing was sent`,
  );
}

export class GatewayCore {
  readonly transport: GatewayTransport;
  readonly baseProfile: WireProfile;
  readonly timeouts: Required<NonNullable<GatewayClientOptions['timeouts']>>;
  /** Effective profiles by the runtime overrides they were built from (settings are cached objects). */
  private readonly profiles = new WeakMap<object, WireProfile>();

  constructor(
    readonly options: GatewayClientOptions,
    http?: HttpService,
  ) {
    const logger: LoggerService = options.logger ?? new Logger('GatewayClient');
    // A host's HttpService (HttpModule) is used as given; without one, Node's http unless an HTTP proxy is set in
    // the environment (axios honours HTTPS_PROXY/HTTP_PROXY, Node's http does not).
    const exchange = http || proxyConfigured() ? axiosExchange(http) : nodeExchange();
    this.transport = new GatewayTransport(exchange, logger, options.retry);
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  }

  /** A write whose answer is an invoice, on the path the profile gives. */
  async invoiceWrite(
    plan: Omit<RequestPlan, 'safety' | 'timeoutMs' | 'path'>,
    pathOf: (profile: WireProfile) => string,
  ): Promise<Invoice> {
    const { conn, profile } = await this.context(plan.operation);
    const answer = await this.send({ ...plan, path: pathOf(profile), safety: 'update' }, conn);
    return this.afterWrite(answer.status, plan.operation, plan.invoiceRef, '', () =>
      this.invoiceFrom(answer.body, plan.operation, plan.invoiceRef, profile),
    );
  }

  /**
   * Reads the 2xx answer of a write that changes an invoice. The service accepted the write, so an answer that
   * cannot be read (a field out of bounds, a missing id) does not mean "failed": it is an unknown outcome, settled
   * by reading the invoice back.
   */
  afterWrite<T>(
    status: number,
    operation: string,
    invoiceRef: string | undefined,
    referrer: string,
    read: () => T,
  ): T {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      const context = { operation, invoiceRef, httpStatus: status, sent: true };
      const what = referrer ? 'the invoice may exist' : `${operation} may have been carried out`;
      throw new GatewayOutcomeUnknownError(
        context,
        `${err.detail}; ${what}`,
        referrer,
        'unreadable_response',
      );
    }
  }

  /** A profile request plan with its body rendered from `values`. */
  planned(
    operation: string,
    invoiceRef: string | undefined,
    plan: WireRequestPlan,
    values: Record<string, unknown>,
  ): Omit<RequestPlan, 'timeoutMs'> {
    const body = typeof plan.body === 'function' ? plan.body(values) : renderTemplate(plan.body, values);
    return { operation, invoiceRef, method: plan.method, path: plan.path, body, safety: 'update' };
  }

  invoiceFrom(
    body: unknown,
    operation: string,
    invoiceRef: string | undefined,
    profile: WireProfile,
  ): Invoice {
    return this.read(operation, invoiceRef, () =>
      normalizeInvoice(body, operation, { codes: profile.codes }),
    );
  }

  /** Runs a response reader; its errors get the invoice reference the reader does not know. */
  read<T>(operation: string, invoiceRef: string | undefined, reader: (r: PayloadReader) => T): T {
    try {
      return reader(new PayloadReader(operation));
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      const error =
        invoiceRef === undefined
          ? err
          : new GatewayResponseError(
              { operation, invoiceRef, sent: true },
              err.detail,
              err.implausibleAmount,
            );
      if (error.implausibleAmount) this.reportImplausible(error);
      throw error;
    }
  }

  /** Tells `onImplausibleAmount` (the module raises an alert); a listener that throws changes nothing here. */
  private reportImplausible(error: GatewayResponseError): void {
    try {
      this.options.onImplausibleAmount?.(error);
    } catch {
      // The answer is refused either way; the listener's failure is its own.
    }
  }

  async send(plan: Omit<RequestPlan, 'timeoutMs'> & { timeoutMs?: number }, conn: GatewayConnection) {
    const timeoutMs =
      plan.timeoutMs ?? (plan.safety === 'read' ? this.timeouts.readMs : this.timeouts.defaultMs);
    const scope = plan.scope ?? OPERATION_SCOPES[plan.operation];
    return this.transport.send(conn, { ...plan, scope, timeoutMs });
  }

  /**
   * The connection and wire profile for this call: `resolveConfig()` when set (runtime settings), else the options;
   * the connection checked (unless `check` is false).
   */
  async context(
    operation: string,
    needsToken = true,
    check = true,
  ): Promise<{ conn: GatewayConnection; profile: WireProfile }> {
    const source = this.options.resolveConfig ? await this.options.resolveConfig() : this.options;
    const conn = check ? checkConnection(source, operation, needsToken) : (source as GatewayConnection);
    return { conn, profile: this.profileWith(this.options.resolveConfig ? source.profile : null) };
  }

  private profileWith(overrides: WireProfileOverrides | null | undefined): WireProfile {
    if (!overrides) return this.baseProfile;
    let profile = this.profiles.get(overrides);
    if (!profile) {
      profile = mergeWireProfile(this.baseProfile, overrides);
      this.profiles.set(overrides, profile);
    }
    return profile;
  }
}
