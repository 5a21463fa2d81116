import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Logger, LoggerService, Optional } from '@nestjs/common';
import axios from 'axios';
import { DEFAULT_TIMEOUTS, GATEWAY_CLIENT_OPTIONS, MAX_PAGE_SIZE, OPERATION_SCOPES } from './constants';
import { createInvoiceRules, CreateInvoiceDto } from './dto/create-invoice.dto';
import {
  CancelInvoiceDto,
  ChangeDueDateDto,
  RefundDto,
  refundRules,
  TrackingDto,
} from './dto/invoice-operations.dto';
import { ListInvoicesDto, listInvoicesRules, PageQueryDto } from './dto/query.dto';
import { validateInput } from './dto/validate';
import { isNonBlank } from './dto/validators';
import { AuthenticateDto, ResendWebhookDto, ValidateWebhookTokenDto } from './dto/webhook.dto';
import {
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayResponseError,
  GatewayUnsupportedError,
  GatewayValidationError,
  isGatewayError,
} from './errors';
import type { GatewayClientOptions, GatewayConnection } from './gateway.options';
import { GatewayTransport, RequestPlan } from './gateway.transport';
import { normalizeInvoice } from './invoice.normalizer';
import { PayloadReader } from './payload.reader';
import { refundValues, toWireCreateInvoice, toWireListQuery, trackingValues } from './request.mapper';
import {
  isLastPage,
  readAccessToken,
  readConsumer,
  readCredentialStatus,
  readDispute,
  readPage,
  readResendResult,
  readTracking,
} from './response.readers';
import type {
  AccessToken,
  Consumer,
  CreateInvoiceParams,
  CredentialStatus,
  Dispute,
  Invoice,
  ListInvoicesParams,
  Page,
  RefundParams,
  ResendWebhookResult,
  TrackingParams,
  TrackingResult,
} from './types';
import { assertResendAllowed } from './webhook-destination';
import { checkConnection } from './connection';
import {
  DEFAULT_LOOKUP_MAX_PAGES,
  DEFAULT_WIRE_PROFILE,
  InvoiceLookup,
  mergeWireProfile,
  valueAt,
  WireProfile,
  WireProfileOverrides,
  WireRequestPlan,
  WriteScope,
} from './wire-profile';
import { renderPath, renderTemplate } from './wire-template';

/** What a credential probe found out about one scope (see `probeScope`). */
export type ScopeProbeResult =
  { result: 'ok' | 'unauthorized' | 'missing_scope' } | { result: 'error'; message: string };

/** `key=value` reference of an invoice for error messages, from input that may not be valid yet. */
function ref(key: string, value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? `${key}=${value}` : undefined;
}

function field(input: unknown, ...path: string[]): unknown {
  let node = input;
  for (const key of path)
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/**
 * The store's only way to the invoicing and payment service: every operation of spec §4, with the conventions of
 * `docs/gateway-assumptions.md`. Input is validated before anything is sent; every failure is a `GatewayError`
 * (see `errors.ts`); only safe requests are retried.
 *
 * In Nest, provide `GATEWAY_CLIENT_OPTIONS` (and `HttpModule` to share its `HttpService`); outside Nest,
 * `new GatewayClient(options)`.
 */
@Injectable()
export class GatewayClient {
  private readonly transport: GatewayTransport;
  private readonly baseProfile: WireProfile;
  private readonly timeouts: Required<NonNullable<GatewayClientOptions['timeouts']>>;
  /** Effective profiles by the runtime overrides they were built from (settings are cached objects). */
  private readonly profiles = new WeakMap<object, WireProfile>();

  constructor(
    @Inject(GATEWAY_CLIENT_OPTIONS) private readonly options: GatewayClientOptions,
    @Optional() http?: HttpService,
  ) {
    const logger: LoggerService = options.logger ?? new Logger('GatewayClient');
    this.transport = new GatewayTransport(http ?? new HttpService(axios.create()), logger, options.retry);
    this.baseProfile = mergeWireProfile(DEFAULT_WIRE_PROFILE, options.profile);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  }

  /** How long another write (refund, cancel...) may take before the client gives up on it (`timeouts.defaultMs`). */
  get writeTimeoutMs(): number {
    return this.timeouts.defaultMs;
  }

  /** How long a create request may take before the client gives up on it (`timeouts.createMs`). */
  get createTimeoutMs(): number {
    return this.timeouts.createMs;
  }

  /**
   * Creates an invoice (`POST /invoices`, §4.2; scope `invoice.write`). Never retried once it may have been sent:
   * a timeout, a dropped connection, a 5xx or an unreadable answer throws `GatewayOutcomeUnknownError`; resolve it
   * with `findInvoiceByReferrer(params.payment.referrer)` before creating again. The invoice's `method` is the one
   * asked for (an answer may carry PIX and bank-slip blocks alike).
   */
  async createInvoice(params: CreateInvoiceParams): Promise<Invoice> {
    const operation = 'createInvoice';
    const referrer = field(params, 'payment', 'referrer');
    const invoiceRef = ref('referrer', referrer);
    const dto = validateInput(CreateInvoiceDto, params, { operation, invoiceRef }, createInvoiceRules);
    const { conn, profile } = await this.context(operation);
    const answer = await this.send(
      {
        operation,
        invoiceRef,
        referrer: dto.payment.referrer,
        method: 'POST',
        path: profile.paths.invoices,
        body: toWireCreateInvoice(dto, profile.codes),
        safety: 'create',
        timeoutMs: this.timeouts.createMs,
      },
      conn,
    );
    return this.afterWrite(answer.status, operation, invoiceRef, dto.payment.referrer, () => ({
      ...this.invoiceFrom(answer.body, operation, invoiceRef, profile),
      method: dto.payment.method,
    }));
  }

  /** One page of invoices (`GET /invoices`, A7; scope `invoice.read`), oldest first. `limit` 1..100, default 100. */
  async listInvoices(params: ListInvoicesParams = {}): Promise<Page<Invoice>> {
    const { conn, profile } = await this.context('listInvoices');
    return this.invoicePage('listInvoices', undefined, params, conn, profile);
  }

  /**
   * Every invoice matching the filters, fetched lazily one page at a time as the iteration advances (memory stays
   * constant whatever the total). Stop early by breaking out of `for await`.
   */
  iterateInvoices(params: Omit<ListInvoicesParams, 'page'> = {}): AsyncIterableIterator<Invoice> {
    return this.invoicePages('iterateInvoices', undefined, params);
  }

  /**
   * The most recently created invoice whose `referrer` is exactly `referrer`, or `null`: resolves a
   * `GatewayOutcomeUnknownError` of `createInvoice`. Found as the profile's `lookup.byReferrer` says; matches are
   * checked here too, in case the service ignores the filter.
   */
  async findInvoiceByReferrer(referrer: string): Promise<Invoice | null> {
    return this.lookup('findInvoiceByReferrer', 'referrer', referrer, (inv) => inv.referrer === referrer);
  }

  /**
   * The invoice whose number (`id`) or `invoice_id` is `id`, or `null`: what a webhook is confirmed with. Found as
   * the profile's `lookup.byId` says.
   */
  async findInvoiceById(id: string): Promise<Invoice | null> {
    return this.lookup('findInvoiceById', 'id', id, (inv) => inv.id === id || inv.invoiceId === id);
  }

  /**
   * Moves the due day of a PIX or bank-slip invoice in status 1 or 15 (`PATCH /invoices`, §4.3; `invoice.update`).
   * Like every write that changes an invoice, a lost answer throws `GatewayOutcomeUnknownError`, never a failure.
   */
  async changeDueDate(params: { invoiceId: string; dueAt: string }): Promise<Invoice> {
    const operation = 'changeDueDate';
    const invoiceRef = ref('invoice_id', field(params, 'invoiceId'));
    const dto = validateInput(ChangeDueDateDto, params, { operation, invoiceRef });
    const body = { payment: { invoice_id: dto.invoiceId, due_at: dto.dueAt } };
    return this.invoiceWrite({ operation, invoiceRef, method: 'PATCH', body }, (p) => p.paths.invoices);
  }

  /** Cancels an invoice by its number `id` (`DELETE /invoices`, §4.4; `invoice.update`): status 6. */
  async cancelInvoice(params: { id: string }): Promise<Invoice> {
    const operation = 'cancelInvoice';
    const invoiceRef = ref('id', field(params, 'id'));
    const dto = validateInput(CancelInvoiceDto, params, { operation, invoiceRef });
    const body = { payment: { id: dto.id } };
    return this.invoiceWrite({ operation, invoiceRef, method: 'DELETE', body }, (p) => p.paths.invoices);
  }

  /**
   * Refunds all or part of a paid invoice (profile `refund`, A8 by default; `invoice.refund`). With
   * `refundableCents` the amount is checked before sending. Never retried once it may have been sent: a timeout,
   * a dropped connection, a 5xx or an unreadable 2xx throws `GatewayOutcomeUnknownError` (the refund may have been
   * made); settle it by reading the invoice's `refunds.total` back (`findInvoiceById`). The module's refund ledger
   * (`RefundService`) does this; call the client directly only if you do the same.
   */
  async refundInvoice(params: RefundParams): Promise<Invoice> {
    const operation = 'refundInvoice';
    const invoiceRef = ref('id', field(params, 'id'));
    const dto = validateInput(RefundDto, params, { operation, invoiceRef }, refundRules);
    const { conn, profile } = await this.context(operation);
    const answer = await this.send(
      this.planned(operation, invoiceRef, profile.refund, refundValues(dto)),
      conn,
    );
    return this.afterWrite(answer.status, operation, invoiceRef, '', () =>
      this.invoiceFrom(answer.body, operation, invoiceRef, profile),
    );
  }

  /** Attaches a shipping tracking code (profile `tracking`, A9 by default; `invoice.update`). Same code: no change. */
  async addTrackingCode(params: TrackingParams): Promise<TrackingResult> {
    const operation = 'addTrackingCode';
    const invoiceRef = ref('invoice_id', field(params, 'invoiceId'));
    const dto = validateInput(TrackingDto, params, { operation, invoiceRef });
    const input: TrackingParams = {
      invoiceId: dto.invoiceId,
      code: dto.code,
      carrier: dto.carrier,
      url: dto.url,
    };
    const { conn, profile } = await this.context(operation);
    const answer = await this.send(
      this.planned(operation, invoiceRef, profile.tracking, trackingValues(input)),
      conn,
    );
    return this.afterWrite(answer.status, operation, invoiceRef, '', () =>
      this.read(operation, invoiceRef, (r) => readTracking(r, answer.body, input)),
    );
  }

  /**
   * Asks the service whether a webhook's service token is its own (`OPTIONS /webhooks`, §4.7): 200 → `true`,
   * 404 → `false`; anything else throws. Retried like a read. The token never appears in logs or errors.
   */
  async validateWebhookToken(serviceToken: string): Promise<boolean> {
    const operation = 'validateWebhookToken';
    validateInput(ValidateWebhookTokenDto, { serviceToken }, { operation });
    const { conn, profile } = await this.context(operation);
    const answer = await this.send(
      {
        operation,
        method: 'OPTIONS',
        path: profile.paths.webhooks,
        body: { token: serviceToken },
        safety: 'read',
        secrets: [serviceToken],
        passStatuses: [404],
      },
      conn,
    );
    return answer.status !== 404;
  }

  /**
   * Asks the service to deliver the latest `events` delivery of `webhook` to `url` again (`COPY /webhooks`, §4.8,
   * A14). Tests only: refused in production mode, and against a remote service the destination must be https and
   * public (see `assertResendAllowed`).
   */
  async resendWebhook(params: {
    url: string;
    events: string;
    webhook: string;
  }): Promise<ResendWebhookResult> {
    const operation = 'resendWebhook';
    const dto = validateInput(ResendWebhookDto, params, { operation });
    const { conn, profile } = await this.context(operation);
    await assertResendAllowed(conn, dto.url, { operation }, this.options.lookup);
    const body = { url: dto.url, events: dto.events, webhook: dto.webhook };
    const answer = await this.send(
      { operation, method: 'COPY', path: profile.paths.webhooks, body, safety: 'write' },
      conn,
    );
    return this.read(operation, undefined, (r) => readResendResult(r, answer.body));
  }

  /** Exchanges client credentials for an access token (profile `authenticate`, A5 by default). */
  async authenticate(params: { clientId: string; clientSecret: string }): Promise<AccessToken> {
    const operation = 'authenticate';
    const dto = validateInput(AuthenticateDto, params, { operation });
    const { conn, profile } = await this.context(operation, false);
    const auth = profile.authenticate ?? unsupported(operation, 'an authenticate operation');
    const values = { client_id: dto.clientId, client_secret: dto.clientSecret };
    const plan: Omit<RequestPlan, 'timeoutMs'> = {
      operation,
      method: auth.method,
      path: auth.path,
      safety: 'write',
      secrets: [dto.clientSecret],
    };
    if (auth.credentials === 'basic') plan.basic = { user: dto.clientId, password: dto.clientSecret };
    else
      plan.body = renderTemplate(
        auth.body ?? { client_id: '{client_id}', client_secret: '{client_secret}' },
        values,
      );
    const answer = await this.send(plan, conn);
    return this.read(operation, undefined, (r) => readAccessToken(r, answer.body, auth.answer));
  }

  /** Whether the configured access token is active, its scopes and expiry (profile `credentialStatus`, A5). */
  async credentialStatus(): Promise<CredentialStatus> {
    const operation = 'credentialStatus';
    const { conn, profile } = await this.context(operation);
    const status = profile.credentialStatus ?? unsupported(operation, 'a credential-status operation');
    const answer = await this.send({ operation, method: 'GET', path: status.path, safety: 'read' }, conn);
    return this.read(operation, undefined, (r) => readCredentialStatus(r, answer.body, status.answer));
  }

  /**
   * Whether the token holds a write scope, without writing: sends the profile's probe for it, an invalid request the
   * service must refuse. 400/422 → `ok` (it got past authentication and scope), 401 → `unauthorized`, 403 →
   * `missing_scope`; a 2xx (the service accepted an invalid request) or anything else → `error`.
   */
  async probeScope(scope: WriteScope): Promise<ScopeProbeResult> {
    const operation = 'probeScope';
    const { conn, profile } = await this.context(operation);
    const probe = profile.credentialProbes[scope];
    try {
      const answer = await this.send(
        { operation, method: probe.method, path: probe.path, body: probe.body, safety: 'write', scope },
        conn,
      );
      return { result: 'error', message: `the service accepted the probe (HTTP ${answer.status})` };
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      if (err.kind === 'validation' && err.sent) return { result: 'ok' };
      if (err.kind === 'authentication') return { result: 'unauthorized' };
      if (err.kind === 'scope') return { result: 'missing_scope' };
      return { result: 'error', message: err.message };
    }
  }

  /** The wire profile in force now: the options' profile with the admin settings' overrides on top. */
  async wireProfile(): Promise<WireProfile> {
    return (await this.context('wireProfile', false, false)).profile;
  }

  /** One page of customers (`GET /consumers`, A10; scope `consumer.read`). */
  async listConsumers(params: { page?: number; limit?: number } = {}): Promise<Page<Consumer>> {
    return this.listOf('listConsumers', 'consumers', params, readConsumer);
  }

  /** One page of mediations (`GET /disputes/mediations`, A10; scope `dispute.read`). */
  async listMediations(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('listMediations', 'mediations', params, readDispute);
  }

  /** One page of chargebacks (`GET /disputes/chargebacks`, A10; scope `dispute.read`). */
  async listChargebacks(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('listChargebacks', 'chargebacks', params, readDispute);
  }

  private async lookup(
    operation: string,
    key: 'referrer' | 'id',
    value: string,
    matches: (invoice: Invoice) => boolean,
  ): Promise<Invoice | null> {
    const invoiceRef = ref(key, value);
    if (!isNonBlank(value)) {
      throw new GatewayValidationError(
        { operation, sent: false },
        `invalid input: ${key} is required; nothing was sent`,
        { [key]: ['is required (a non-empty string)'] },
      );
    }
    const { conn, profile } = await this.context(operation);
    const plan: InvoiceLookup = key === 'referrer' ? profile.lookup.byReferrer : profile.lookup.byId;
    if ('get' in plan) {
      try {
        const path = renderPath(plan.get, { value, [key]: value });
        const answer = await this.send({ operation, invoiceRef, method: 'GET', path, safety: 'read' }, conn);
        const body = plan.at ? valueAt(answer.body, plan.at) : answer.body;
        const invoice = this.invoiceFrom(body, operation, invoiceRef, profile);
        return matches(invoice) ? invoice : null;
      } catch (err) {
        if (err instanceof GatewayNotFoundError) return null;
        throw err;
      }
    }
    const filter = { [plan.list]: value } as Partial<Record<string, string>>;
    let found: Invoice | null = null;
    const maxPages = plan.maxPages ?? DEFAULT_LOOKUP_MAX_PAGES;
    for await (const invoice of this.invoicePages(operation, invoiceRef, filter, maxPages, {
      conn,
      profile,
    })) {
      if (matches(invoice)) found = invoice;
    }
    return found;
  }

  private async invoicePage(
    operation: string,
    invoiceRef: string | undefined,
    params: ListInvoicesParams & { id?: string },
    conn: GatewayConnection,
    profile: WireProfile,
  ): Promise<Page<Invoice>> {
    const { id, ...filters } = params;
    const dto = validateInput(ListInvoicesDto, filters, { operation, invoiceRef }, listInvoicesRules);
    const query = toWireListQuery(dto, profile.list.query);
    if (id !== undefined) query[profile.list.query.id] = id;
    const asked = { page: dto.page ?? 1, limit: dto.limit ?? MAX_PAGE_SIZE };
    const answer = await this.send(
      { operation, invoiceRef, method: 'GET', path: profile.paths.invoices, query, safety: 'read' },
      conn,
    );
    return this.read(operation, invoiceRef, (r) =>
      readPage(r, answer.body, profile.list, profile.list.items.invoices, asked, (item, path) => {
        try {
          return normalizeInvoice(item, operation, { codes: profile.codes });
        } catch (err) {
          if (err instanceof GatewayResponseError) r.fail(path, err.detail, err.implausibleAmount);
          throw err;
        }
      }),
    );
  }

  /** Pages until the last one: `pages` when the service says it, else the first page shorter than asked. */
  private async *invoicePages(
    operation: string,
    invoiceRef: string | undefined,
    params: Omit<ListInvoicesParams, 'page'> & { id?: string },
    maxPages = Number.POSITIVE_INFINITY,
    ctx?: { conn: GatewayConnection; profile: WireProfile },
  ): AsyncGenerator<Invoice> {
    const { conn, profile } = ctx ?? (await this.context(operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        throw new GatewayResponseError(
          { operation, invoiceRef, sent: true },
          `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`,
        );
      }
      const result = await this.invoicePage(operation, invoiceRef, { ...params, page }, conn, profile);
      yield* result.items;
      if (isLastPage({ ...result, page })) return;
    }
  }

  private async listOf<T>(
    operation: string,
    kind: 'consumers' | 'mediations' | 'chargebacks',
    params: { page?: number; limit?: number },
    readItem: (r: PayloadReader, item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const dto = validateInput(PageQueryDto, params, { operation });
    const { conn, profile } = await this.context(operation);
    const asked = { page: dto.page ?? 1, limit: dto.limit ?? MAX_PAGE_SIZE };
    const query = { [profile.list.query.page]: asked.page, [profile.list.query.limit]: asked.limit };
    const path = profile.paths[kind];
    const answer = await this.send({ operation, method: 'GET', path, query, safety: 'read' }, conn);
    return this.read(operation, undefined, (r) =>
      readPage(r, answer.body, profile.list, profile.list.items[kind], asked, (item, p) =>
        readItem(r, item, p),
      ),
    );
  }

  /** A write whose answer is an invoice, on the path the profile gives. */
  private async invoiceWrite(
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
  private afterWrite<T>(
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
  private planned(
    operation: string,
    invoiceRef: string | undefined,
    plan: WireRequestPlan,
    values: Record<string, unknown>,
  ): Omit<RequestPlan, 'timeoutMs'> {
    const body = typeof plan.body === 'function' ? plan.body(values) : renderTemplate(plan.body, values);
    return { operation, invoiceRef, method: plan.method, path: plan.path, body, safety: 'update' };
  }

  private invoiceFrom(
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
  private read<T>(operation: string, invoiceRef: string | undefined, reader: (r: PayloadReader) => T): T {
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

  private async send(plan: Omit<RequestPlan, 'timeoutMs'> & { timeoutMs?: number }, conn: GatewayConnection) {
    const timeoutMs =
      plan.timeoutMs ?? (plan.safety === 'read' ? this.timeouts.readMs : this.timeouts.defaultMs);
    const scope = plan.scope ?? OPERATION_SCOPES[plan.operation];
    return this.transport.send(conn, { ...plan, scope, timeoutMs });
  }

  /**
   * The connection and wire profile for this call: `resolveConfig()` when set (runtime settings), else the options;
   * the connection checked (unless `check` is false).
   */
  private async context(
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

function unsupported(operation: string, what: string): never {
  throw new GatewayUnsupportedError(
    { operation },
    `the wire profile says the service has no ${what}; nothing was sent`,
  );
}
