import { HttpService } from '@nestjs/axios';
import { Logger } from '@nestjs/common';
import { DEFAULT_TIMEOUTS, MAX_PAGE_SIZE, OPERATION_SCOPES } from './constants';
import { LIST_INVOICES, listInvoicesRules, PAGE_QUERY } from './dto/inputs';
import { isNonBlank, validateInput } from './dto/validators';
import {
  GatewayNotFoundError,
  GatewayResponseError,
  GatewayUnsupportedError,
  GatewayValidationError,
} from './errors';
import { checkConnection, type GatewayClientOptions, type GatewayConnection } from './gateway.options';
import { lostOr } from './error.mapper';
import { GatewayTransport, HttpAnswer, RequestPlan } from './gateway.transport';
import { axiosExchange, nodeExchange, proxyConfigured } from './http-exchange';
import { normalizeInvoice } from './invoice.normalizer';
import { PayloadReader } from './payload.reader';
import { isLastPage, readPage } from './response.readers';
import type { Invoice, ListInvoicesParams, Page } from './types';
import {
  DEFAULT_LOOKUP_MAX_PAGES,
  mergeWireProfile,
  valueAt,
  WireProfile,
  DEFAULT_WIRE_PROFILE,
} from './wire-profile';
import { renderPath } from './wire-template';

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

/** A request as an operation plans it: the transport's plan without what the client adds. */
export type Planned = Omit<RequestPlan, 'operation' | 'invoiceRef' | 'timeoutMs'> & { timeoutMs?: number };

/** An invoice-number filter beside the list filters: what a lookup by id sends. */
type Filters = ListInvoicesParams & { id?: string };

/**
 * What every operation of {@link GatewayClient} shares: the connection and wire profile of the moment, one
 * request through the transport, answers read through the one normalizer, and the list pages.
 */
export abstract class GatewayClientBase {
  protected readonly transport: GatewayTransport;
  protected readonly timeouts: Required<NonNullable<GatewayClientOptions['timeouts']>>;
  private readonly baseProfile: WireProfile;
  /** Effective profiles by the runtime overrides they were built from (settings are cached objects). */
  private readonly profiles = new WeakMap<object, WireProfile>();

  constructor(
    protected readonly options: GatewayClientOptions,
    http?: HttpService,
  ) {
    // A host's HttpService is used as given; without one, Node's http unless an HTTP proxy is set in the
    // environment (axios honours HTTPS_PROXY/HTTP_PROXY, Node's http does not).
    const exchange = http || proxyConfigured() ? axiosExchange(http) : nodeExchange();
    this.transport = new GatewayTransport(
      exchange,
      options.logger ?? new Logger('GatewayClient'),
      options.retry,
    );
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  }

  /** The connection (checked unless `check` is false) and wire profile for this call: `resolveConfig()` or the options. */
  protected async context(
    operation: string,
    needsToken = true,
    check = true,
  ): Promise<{ conn: GatewayConnection; profile: WireProfile }> {
    const resolve = this.options.resolveConfig;
    const source = resolve ? await resolve() : this.options;
    let profile = this.baseProfile;
    if (resolve && source?.profile) {
      profile = this.profiles.get(source.profile) ?? mergeWireProfile(profile, source.profile);
      this.profiles.set(source.profile, profile);
    }
    return { conn: check ? checkConnection(source, operation, needsToken) : source, profile };
  }

  /**
   * One request of `operation`, its answer read by `read`. The 2xx answer of a write that changes an invoice was
   * accepted by the service, so one that cannot be read is an unknown outcome, settled by reading the invoice back.
   */
  protected async call<T>(
    operation: string,
    invoiceRef: string | undefined,
    plan: (profile: WireProfile, conn: GatewayConnection) => Planned | Promise<Planned>,
    read: (r: PayloadReader, answer: HttpAnswer, profile: WireProfile) => T,
    needsToken = true,
  ): Promise<T> {
    const { conn, profile } = await this.context(operation, needsToken);
    const planned = await plan(profile, conn);
    const answer = await this.send({ operation, invoiceRef, ...planned }, conn);
    try {
      return this.read(operation, invoiceRef, (r) => read(r, answer, profile));
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      const base = { operation, invoiceRef, httpStatus: answer.status, sent: true };
      throw lostOr({ operation, ...planned }, base, err.detail, 'unreadable_response', () => err);
    }
  }

  protected send(plan: Omit<RequestPlan, 'timeoutMs'> & { timeoutMs?: number }, conn: GatewayConnection) {
    const timeoutMs =
      plan.timeoutMs ?? (plan.safety === 'read' ? this.timeouts.readMs : this.timeouts.defaultMs);
    const scope = plan.scope ?? OPERATION_SCOPES[plan.operation];
    return this.transport.send(conn, { ...plan, scope, timeoutMs });
  }

  /**
   * Runs a response reader; its errors get the invoice reference the reader does not know, and an implausible
   * amount is told to `onImplausibleAmount` (the module raises an alert; a listener that throws changes nothing).
   */
  protected read<T>(operation: string, invoiceRef: string | undefined, reader: (r: PayloadReader) => T): T {
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

  /**
   * One invoice by `key`, as the profile's lookup plan says; `null` when none matches. `paymentId` narrows a lookup
   * by referrer to the invoices the service lists under that `payment.id` (the list filter, A7; `{payment_id}` in a
   * `get` path): the invoice shape does not carry `payment.id`, so the service's filter is what tells it.
   */
  protected async lookup(
    operation: string,
    key: 'referrer' | 'id',
    value: string,
    matches: (invoice: Invoice) => boolean,
    paymentId?: string,
  ): Promise<Invoice | null> {
    const invoiceRef = ref(key, value);
    for (const [name, text] of [
      [key, value],
      ...(paymentId === undefined ? [] : [['paymentId', paymentId]]),
    ]) {
      if (!isNonBlank(text)) {
        throw new GatewayValidationError(
          { operation, sent: false },
          `invalid input: ${name} is required; nothing was sent`,
          { [name]: ['is required (a non-empty string)'] },
        );
      }
    }
    const ctx = await this.context(operation);
    const plan = ctx.profile.lookup[key === 'referrer' ? 'byReferrer' : 'byId'];
    if ('get' in plan) {
      const values = { value, [key]: value, ...(paymentId === undefined ? {} : { payment_id: paymentId }) };
      const path = renderPath(plan.get, values);
      try {
        const answer = await this.send(
          { operation, invoiceRef, method: 'GET', path, safety: 'read' },
          ctx.conn,
        );
        const body = plan.at ? valueAt(answer.body, plan.at) : answer.body;
        const invoice = this.read(operation, invoiceRef, () =>
          normalizeInvoice(body, operation, { codes: ctx.profile.codes }),
        );
        return matches(invoice) ? invoice : null;
      } catch (err) {
        if (err instanceof GatewayNotFoundError) return null;
        throw err;
      }
    }
    const filters = { ...(paymentId === undefined ? {} : { paymentId }), [plan.list]: value };
    // The lookup's own filters are checked above; another `list` filter (a number) is checked as the list does.
    const checked = ['id', 'referrer', 'paymentId'].includes(plan.list);
    let found: Invoice | null = null;
    const maxPages = plan.maxPages ?? DEFAULT_LOOKUP_MAX_PAGES;
    for await (const invoice of this.invoicePages(operation, invoiceRef, filters, maxPages, ctx, checked)) {
      if (matches(invoice)) found = invoice;
    }
    return found;
  }

  /**
   * Pages until the last one: `pages` when the service says it, else the first page shorter than asked. The
   * filters are validated once, before the first request (`checked`: the caller did).
   */
  protected async *invoicePages(
    operation: string,
    invoiceRef: string | undefined,
    params: Omit<Filters, 'page'>,
    maxPages = Number.POSITIVE_INFINITY,
    ctx?: { conn: GatewayConnection; profile: WireProfile },
    checked = false,
  ): AsyncGenerator<Invoice> {
    const filters = checked ? params : this.listFilters(operation, invoiceRef, params);
    const { conn, profile } = ctx ?? (await this.context(operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        throw new GatewayResponseError(
          { operation, invoiceRef, sent: true },
          `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`,
        );
      }
      const result = await this.invoicePage(operation, invoiceRef, { ...filters, page }, conn, profile);
      yield* result.items;
      if (isLastPage({ ...result, page })) return;
    }
  }

  /** The list filters validated; `id` passes through (a lookup's invoice-number filter, checked by the caller). */
  protected listFilters<P extends Filters>(
    operation: string,
    invoiceRef: string | undefined,
    params: P,
  ): Filters {
    const { id, ...filters } = params;
    const dto = validateInput<Filters>(LIST_INVOICES, filters, { operation, invoiceRef }, listInvoicesRules);
    return id === undefined ? dto : Object.assign(dto, { id });
  }

  /** One page of invoices for filters already validated, with the parameter names the profile gives. */
  protected async invoicePage(
    operation: string,
    invoiceRef: string | undefined,
    filters: Filters,
    conn: GatewayConnection,
    profile: WireProfile,
  ): Promise<Page<Invoice>> {
    const names = profile.list.query;
    const asked = { page: filters.page ?? 1, limit: filters.limit ?? MAX_PAGE_SIZE };
    const query: Record<string, string | number> = { [names.page]: asked.page, [names.limit]: asked.limit };
    for (const key of ['status', 'referrer', 'paymentId', 'createdFrom', 'createdTo', 'id'] as const) {
      if (filters[key] !== undefined) query[names[key]] = filters[key];
    }
    const path = profile.paths.invoices;
    const answer = await this.send(
      { operation, invoiceRef, method: 'GET', path, query, safety: 'read' },
      conn,
    );
    return this.read(operation, invoiceRef, (r) =>
      readPage(r, answer.body, profile.list, profile.list.items.invoices, asked, (item, at) => {
        try {
          return normalizeInvoice(item, operation, { codes: profile.codes });
        } catch (err) {
          if (err instanceof GatewayResponseError) r.fail(at, err.detail, err.implausibleAmount);
          throw err;
        }
      }),
    );
  }

  /** One page of another list (consumers, mediations, chargebacks: A10). */
  protected async listOf<T>(
    operation: string,
    kind: 'consumers' | 'mediations' | 'chargebacks',
    params: { page?: number; limit?: number },
    readItem: (r: PayloadReader, item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const dto = validateInput<typeof params>(PAGE_QUERY, params, { operation });
    const asked = { page: dto.page ?? 1, limit: dto.limit ?? MAX_PAGE_SIZE };
    return this.call(
      operation,
      undefined,
      (p) => ({
        method: 'GET',
        path: p.paths[kind],
        query: { [p.list.query.page]: asked.page, [p.list.query.limit]: asked.limit },
        safety: 'read',
      }),
      (r, answer, p) =>
        readPage(r, answer.body, p.list, p.list.items[kind], asked, (item, at) => readItem(r, item, at)),
    );
  }
}
