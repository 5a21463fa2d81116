import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Logger, LoggerService, Optional } from '@nestjs/common';
import axios from 'axios';
import {
  DEFAULT_LIST_QUERY,
  DEFAULT_PATHS,
  DEFAULT_PAYMENT_TYPES,
  DEFAULT_PRODUCT_TYPES,
  DEFAULT_TIMEOUTS,
  GATEWAY_CLIENT_OPTIONS,
  MAX_PAGE_SIZE,
  OPERATION_SCOPES,
} from './constants';
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
import { GatewayOutcomeUnknownError, GatewayResponseError, GatewayValidationError } from './errors';
import type {
  GatewayClientOptions,
  GatewayConnection,
  GatewayListQueryNames,
  GatewayPaths,
} from './gateway.options';
import { GatewayTransport, HttpAnswer, RequestPlan } from './gateway.transport';
import { normalizeInvoice } from './invoice.normalizer';
import { PayloadReader } from './payload.reader';
import { toWireCreateInvoice, toWireListQuery, toWireTracking, WireCodes } from './request.mapper';
import {
  readAccessToken,
  readConsumer,
  readCredentialStatus,
  readDispute,
  readPage,
  readResendResult,
  readTracking,
} from './response.readers';
import { centsToWireNumber } from './money';
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
  private readonly paths: GatewayPaths;
  private readonly query: GatewayListQueryNames;
  private readonly codes: WireCodes;
  private readonly timeouts: Required<NonNullable<GatewayClientOptions['timeouts']>>;

  constructor(
    @Inject(GATEWAY_CLIENT_OPTIONS) private readonly options: GatewayClientOptions,
    @Optional() http?: HttpService,
  ) {
    const logger: LoggerService = options.logger ?? new Logger('GatewayClient');
    this.transport = new GatewayTransport(http ?? new HttpService(axios.create()), logger, options.retry);
    this.paths = { ...DEFAULT_PATHS, ...options.paths };
    this.query = { ...DEFAULT_LIST_QUERY, ...options.listQuery };
    this.codes = {
      paymentTypes: options.paymentTypes ?? DEFAULT_PAYMENT_TYPES,
      productTypes: options.productTypes ?? DEFAULT_PRODUCT_TYPES,
    };
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  }

  /**
   * Creates an invoice (`POST /invoices`, §4.2; scope `invoice.write`). Never retried once it may have been sent:
   * a timeout, a dropped connection, a 5xx or an unreadable answer throws `GatewayOutcomeUnknownError`; resolve it
   * with `findInvoiceByReferrer(params.payment.referrer)` before creating again.
   */
  async createInvoice(params: CreateInvoiceParams): Promise<Invoice> {
    const operation = 'createInvoice';
    const referrer = field(params, 'payment', 'referrer');
    const invoiceRef = ref('referrer', referrer);
    const dto = validateInput(CreateInvoiceDto, params, { operation, invoiceRef }, createInvoiceRules);
    const answer = await this.send({
      operation,
      invoiceRef,
      referrer: dto.payment.referrer,
      method: 'POST',
      path: this.paths.invoices,
      body: toWireCreateInvoice(dto, this.codes),
      safety: 'create',
      timeoutMs: this.timeouts.createMs,
    });
    try {
      return this.invoiceFrom(answer.body, operation, invoiceRef);
    } catch (err) {
      if (!(err instanceof GatewayResponseError)) throw err;
      const context = { operation, invoiceRef, httpStatus: answer.status, sent: true };
      throw new GatewayOutcomeUnknownError(
        context,
        `${err.detail}; the invoice may exist`,
        dto.payment.referrer,
        'unreadable_response',
      );
    }
  }

  /** One page of invoices (`GET /invoices`, A7; scope `invoice.read`), oldest first. `limit` 1..100, default 100. */
  async listInvoices(params: ListInvoicesParams = {}): Promise<Page<Invoice>> {
    return this.invoicePage('listInvoices', undefined, params);
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
   * `GatewayOutcomeUnknownError` of `createInvoice`. Matches are checked here too, in case the service ignores the
   * filter.
   */
  async findInvoiceByReferrer(referrer: string): Promise<Invoice | null> {
    const operation = 'findInvoiceByReferrer';
    const invoiceRef = ref('referrer', referrer);
    if (!isNonBlank(referrer)) {
      const fields = { referrer: ['is required (a non-empty string)'] };
      throw new GatewayValidationError(
        { operation, sent: false },
        'invalid input: referrer is required; nothing was sent',
        fields,
      );
    }
    let found: Invoice | null = null;
    for await (const invoice of this.invoicePages(operation, invoiceRef, { referrer })) {
      if (invoice.referrer === referrer) found = invoice;
    }
    return found;
  }

  /** Moves the due day of a PIX or bank-slip invoice in status 1 or 15 (`PATCH /invoices`, §4.3; `invoice.update`). */
  async changeDueDate(params: { invoiceId: string; dueAt: string }): Promise<Invoice> {
    const operation = 'changeDueDate';
    const invoiceRef = ref('invoice_id', field(params, 'invoiceId'));
    const dto = validateInput(ChangeDueDateDto, params, { operation, invoiceRef });
    const body = { payment: { invoice_id: dto.invoiceId, due_at: dto.dueAt } };
    return this.invoiceWrite({ operation, invoiceRef, method: 'PATCH', path: this.paths.invoices, body });
  }

  /** Cancels an invoice by its number `id` (`DELETE /invoices`, §4.4; `invoice.update`): status 6. */
  async cancelInvoice(params: { id: string }): Promise<Invoice> {
    const operation = 'cancelInvoice';
    const invoiceRef = ref('id', field(params, 'id'));
    const dto = validateInput(CancelInvoiceDto, params, { operation, invoiceRef });
    return this.invoiceWrite({
      operation,
      invoiceRef,
      method: 'DELETE',
      path: this.paths.invoices,
      body: { payment: { id: dto.id } },
    });
  }

  /**
   * Refunds all or part of a paid invoice (`PUT /invoices`, A8; `invoice.refund`). With `refundableCents` the amount
   * is checked before sending.
   */
  async refundInvoice(params: RefundParams): Promise<Invoice> {
    const operation = 'refundInvoice';
    const invoiceRef = ref('id', field(params, 'id'));
    const dto = validateInput(RefundDto, params, { operation, invoiceRef }, refundRules);
    const body = {
      payment: { id: dto.id, invoice_id: dto.invoiceId, amount: centsToWireNumber(dto.amountCents) },
    };
    return this.invoiceWrite({ operation, invoiceRef, method: 'PUT', path: this.paths.invoices, body });
  }

  /** Attaches a shipping tracking code (`POST /invoices/tracking`, A9; `invoice.update`). Same code again: no change. */
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
    const body = (this.options.trackingBody ?? toWireTracking)(input);
    const answer = await this.send({
      operation,
      invoiceRef,
      method: 'POST',
      path: this.paths.tracking,
      body,
      safety: 'write',
    });
    return this.read(operation, invoiceRef, (r) => readTracking(r, answer.body, input));
  }

  /**
   * Asks the service whether a webhook's service token is its own (`OPTIONS /webhooks`, §4.7): 200 → `true`,
   * 404 → `false`; anything else throws. Retried like a read. The token never appears in logs or errors.
   */
  async validateWebhookToken(serviceToken: string): Promise<boolean> {
    const operation = 'validateWebhookToken';
    validateInput(ValidateWebhookTokenDto, { serviceToken }, { operation });
    const answer = await this.send({
      operation,
      method: 'OPTIONS',
      path: this.paths.webhooks,
      body: { token: serviceToken },
      safety: 'read',
      secrets: [serviceToken],
      passStatuses: [404],
    });
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
    const conn = await this.connection(operation);
    await assertResendAllowed(conn, dto.url, { operation }, this.options.lookup);
    const body = { url: dto.url, events: dto.events, webhook: dto.webhook };
    const answer = await this.send(
      { operation, method: 'COPY', path: this.paths.webhooks, body, safety: 'write' },
      conn,
    );
    return this.read(operation, undefined, (r) => readResendResult(r, answer.body));
  }

  /** Exchanges client credentials for an access token (`GET /auth/token` with Basic credentials, A5). */
  async authenticate(params: { clientId: string; clientSecret: string }): Promise<AccessToken> {
    const operation = 'authenticate';
    const dto = validateInput(AuthenticateDto, params, { operation });
    const conn = await this.connection(operation, false);
    const basic = { user: dto.clientId, password: dto.clientSecret };
    const plan = {
      operation,
      method: 'GET' as const,
      path: this.paths.authenticate,
      safety: 'write' as const,
      basic,
    };
    const answer = await this.send(plan, conn);
    return this.read(operation, undefined, (r) => readAccessToken(r, answer.body));
  }

  /** Whether the configured access token is active, its scopes and expiry (`GET /auth/status`, A5). */
  async credentialStatus(): Promise<CredentialStatus> {
    const operation = 'credentialStatus';
    const answer = await this.send({
      operation,
      method: 'GET',
      path: this.paths.credentialStatus,
      safety: 'read',
    });
    return this.read(operation, undefined, (r) => readCredentialStatus(r, answer.body));
  }

  /** One page of customers (`GET /consumers`, A10; scope `consumer.read`). */
  async listConsumers(params: { page?: number; limit?: number } = {}): Promise<Page<Consumer>> {
    return this.listOf('listConsumers', this.paths.consumers, 'consumers', params, readConsumer);
  }

  /** One page of mediations (`GET /disputes/mediations`, A10; scope `dispute.read`). */
  async listMediations(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('listMediations', this.paths.mediations, 'mediations', params, readDispute);
  }

  /** One page of chargebacks (`GET /disputes/chargebacks`, A10; scope `dispute.read`). */
  async listChargebacks(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('listChargebacks', this.paths.chargebacks, 'chargebacks', params, readDispute);
  }

  private async invoicePage(
    operation: string,
    invoiceRef: string | undefined,
    params: ListInvoicesParams,
  ): Promise<Page<Invoice>> {
    const dto = validateInput(ListInvoicesDto, params, { operation, invoiceRef }, listInvoicesRules);
    const query = toWireListQuery(dto, this.query);
    const answer = await this.send({
      operation,
      invoiceRef,
      method: 'GET',
      path: this.paths.invoices,
      query,
      safety: 'read',
    });
    return this.read(operation, invoiceRef, (r) =>
      readPage(r, answer.body, 'invoices', (item, path) => {
        try {
          return normalizeInvoice(item, operation);
        } catch (err) {
          if (err instanceof GatewayResponseError) r.fail(path, err.detail);
          throw err;
        }
      }),
    );
  }

  private async *invoicePages(
    operation: string,
    invoiceRef: string | undefined,
    params: Omit<ListInvoicesParams, 'page'>,
  ): AsyncGenerator<Invoice> {
    for (let page = 1; ; page++) {
      const result = await this.invoicePage(operation, invoiceRef, { ...params, page });
      yield* result.items;
      if (result.items.length === 0 || page >= result.pages) return;
    }
  }

  private async listOf<T>(
    operation: string,
    path: string,
    listField: string,
    params: { page?: number; limit?: number },
    readItem: (r: PayloadReader, item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const dto = validateInput(PageQueryDto, params, { operation });
    const query = { [this.query.page]: dto.page ?? 1, [this.query.limit]: dto.limit ?? MAX_PAGE_SIZE };
    const answer = await this.send({ operation, method: 'GET', path, query, safety: 'read' });
    return this.read(operation, undefined, (r) =>
      readPage(r, answer.body, listField, (item, p) => readItem(r, item, p)),
    );
  }

  private async invoiceWrite(plan: Omit<RequestPlan, 'safety' | 'timeoutMs'>): Promise<Invoice> {
    const answer = await this.send({ ...plan, safety: 'write' });
    return this.invoiceFrom(answer.body, plan.operation, plan.invoiceRef);
  }

  private invoiceFrom(body: unknown, operation: string, invoiceRef: string | undefined): Invoice {
    return this.read(operation, invoiceRef, () => normalizeInvoice(body, operation));
  }

  /** Runs a response reader; its errors get the invoice reference the reader does not know. */
  private read<T>(operation: string, invoiceRef: string | undefined, reader: (r: PayloadReader) => T): T {
    try {
      return reader(new PayloadReader(operation));
    } catch (err) {
      if (!(err instanceof GatewayResponseError) || invoiceRef === undefined) throw err;
      throw new GatewayResponseError({ operation, invoiceRef, sent: true }, err.detail);
    }
  }

  private async send(
    plan: Omit<RequestPlan, 'timeoutMs'> & { timeoutMs?: number },
    conn?: GatewayConnection,
  ): Promise<HttpAnswer> {
    const connection = conn ?? (await this.connection(plan.operation));
    const timeoutMs =
      plan.timeoutMs ?? (plan.safety === 'read' ? this.timeouts.readMs : this.timeouts.defaultMs);
    return this.transport.send(connection, { scope: OPERATION_SCOPES[plan.operation], ...plan, timeoutMs });
  }

  /** The connection for this call: `resolveConfig()` when set (runtime settings), else the options; checked. */
  private async connection(operation: string, needsToken = true): Promise<GatewayConnection> {
    const source = this.options.resolveConfig ? await this.options.resolveConfig() : this.options;
    return checkConnection(source, operation, needsToken);
  }
}
