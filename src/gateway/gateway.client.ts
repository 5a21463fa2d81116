import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { GATEWAY_CLIENT_OPTIONS } from './constants';
import {
  AUTHENTICATE,
  CANCEL_INVOICE,
  CHANGE_DUE_DATE,
  CREATE_INVOICE,
  createInvoiceRules,
  REFUND,
  refundRules,
  RESEND_WEBHOOK,
  TRACKING,
  WEBHOOK_TOKEN,
} from './dto/inputs';
import { validateInput } from './dto/validators';
import { isGatewayError } from './errors';
import { field, GatewayClientBase, Planned, ref, unsupported } from './gateway.base';
import type { GatewayClientOptions } from './gateway.options';
import type { HttpAnswer } from './gateway.transport';
import { normalizeInvoice } from './invoice.normalizer';
import type { PayloadReader } from './payload.reader';
import { refundValues, rendered, toWireCreateInvoice } from './request.mapper';
import {
  readAccessToken,
  readConsumer,
  readCredentialStatus,
  readDispute,
  readResendResult,
  readTracking,
  trackingCodeOf,
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
import { WireProfile, WriteScope } from './wire-profile';
import { renderTemplate } from './wire-template';

/** What a credential probe found out about one scope (see `probeScope`). */
export type ScopeProbeResult =
  { result: 'ok' | 'unauthorized' | 'missing_scope' } | { result: 'error'; message: string };

/** The answer read as an invoice, in either shape, with the profile's `payment.type` codes. */
const invoiceAnswer = (r: PayloadReader, answer: HttpAnswer, profile: WireProfile): Invoice =>
  normalizeInvoice(answer.body, r.operation, { codes: profile.codes });

/**
 * The store's only way to the invoicing and payment service: every operation of spec §4, with the conventions of
 * `docs/gateway-assumptions.md`. Input is validated before anything is sent; every failure is a `GatewayError`
 * (see `errors.ts`); only safe requests are retried.
 *
 * In Nest, provide `GATEWAY_CLIENT_OPTIONS`; outside Nest, `new GatewayClient(options)`. Requests go over Node's
 * `http`/`https`, or through axios when `HTTPS_PROXY`/`HTTP_PROXY` is set; import `HttpModule` to have them go
 * through its `HttpService` instead (its interceptors and settings apply).
 */
@Injectable()
export class GatewayClient extends GatewayClientBase {
  constructor(@Inject(GATEWAY_CLIENT_OPTIONS) options: GatewayClientOptions, @Optional() http?: HttpService) {
    super(options, http);
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
    const invoiceRef = ref('referrer', field(params, 'payment', 'referrer'));
    const dto = validateInput<CreateInvoiceParams>(
      CREATE_INVOICE,
      params,
      { operation, invoiceRef },
      createInvoiceRules,
    );
    const { referrer, method } = dto.payment;
    return this.call(
      operation,
      invoiceRef,
      (p) => ({
        referrer,
        method: 'POST',
        path: p.paths.invoices,
        body: toWireCreateInvoice(dto, p.codes),
        safety: 'create',
        timeoutMs: this.timeouts.createMs,
      }),
      (r, answer, p) => ({ ...invoiceAnswer(r, answer, p), method }),
    );
  }

  /** One page of invoices (`GET /invoices`, A7; scope `invoice.read`), oldest first. `limit` 1..100, default 100. */
  async listInvoices(params: ListInvoicesParams = {}): Promise<Page<Invoice>> {
    const operation = 'listInvoices';
    const { conn, profile } = await this.context(operation);
    return this.invoicePage(
      operation,
      undefined,
      this.listFilters(operation, undefined, params),
      conn,
      profile,
    );
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
   *
   * `options.paymentId`: only invoices the service lists under that `payment.id` (the list filter `paymentId`, A7);
   * `options.id`: only that invoice number. Together they tell whether an invoice is the one a creation sent
   * (the invoice shape does not carry `payment.id`; see `InvoiceIdentity`).
   */
  async findInvoiceByReferrer(
    referrer: string,
    options: { paymentId?: string; id?: string } = {},
  ): Promise<Invoice | null> {
    const matches = (inv: Invoice) =>
      inv.referrer === referrer && (options.id === undefined || inv.id === options.id);
    return this.lookup('findInvoiceByReferrer', 'referrer', referrer, matches, options.paymentId);
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
    const dto = validateInput<typeof params>(CHANGE_DUE_DATE, params, { operation, invoiceRef });
    const body = { payment: { invoice_id: dto.invoiceId, due_at: dto.dueAt } };
    const plan = (p: WireProfile): Planned => ({
      method: 'PATCH',
      path: p.paths.invoices,
      body,
      safety: 'update',
    });
    return this.call(operation, invoiceRef, plan, invoiceAnswer);
  }

  /** Cancels an invoice by its number `id` (`DELETE /invoices`, §4.4; `invoice.update`): status 6. */
  async cancelInvoice(params: { id: string }): Promise<Invoice> {
    const operation = 'cancelInvoice';
    const invoiceRef = ref('id', field(params, 'id'));
    const dto = validateInput<typeof params>(CANCEL_INVOICE, params, { operation, invoiceRef });
    const body = { payment: { id: dto.id } };
    const plan = (p: WireProfile): Planned => ({
      method: 'DELETE',
      path: p.paths.invoices,
      body,
      safety: 'update',
    });
    return this.call(operation, invoiceRef, plan, invoiceAnswer);
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
    const dto = validateInput<RefundParams>(REFUND, params, { operation, invoiceRef }, refundRules);
    return this.call(operation, invoiceRef, (p) => rendered(p.refund, refundValues(dto)), invoiceAnswer);
  }

  /** Attaches a shipping tracking code (profile `tracking`, A9 by default; `invoice.update`). Same code: no change. */
  async addTrackingCode(params: TrackingParams): Promise<TrackingResult> {
    const operation = 'addTrackingCode';
    const invoiceRef = ref('invoice_id', field(params, 'invoiceId'));
    const { invoiceId, code, carrier, url } = validateInput<TrackingParams>(TRACKING, params, {
      operation,
      invoiceRef,
    });
    const sent = { invoiceId, code, carrier, url };
    const values = { invoice_id: invoiceId, code, carrier, url };
    return this.call(
      operation,
      invoiceRef,
      (p) => rendered(p.tracking, values),
      (r, answer) => readTracking(r, answer.body, sent),
    );
  }

  /**
   * The tracking code an invoice shows now (profile `readBack.trackingCode`; A9: the invoice's `tracking.code`), the
   * invoice found by `findInvoiceById` (its number or `invoice_id`): how a tracking post whose answer was lost is
   * settled before the code is sent again. `null` when the invoice has no code or the service found no such invoice.
   *
   * @throws GatewayUnsupportedError, with nothing sent, when the profile says the service's invoices do not show it.
   */
  async findTrackingCode(invoiceId: string): Promise<string | null> {
    const operation = 'findTrackingCode';
    const path = (await this.context(operation, false, false)).profile.readBack.trackingCode;
    if (path === null) unsupported(operation, 'tracking code on its invoices (readBack.trackingCode)');
    const invoice = await this.findInvoiceById(invoiceId);
    return invoice ? trackingCodeOf(invoice.raw, path) : null;
  }

  /**
   * Asks the service whether a webhook's service token is its own (`OPTIONS /webhooks`, §4.7): 200 → `true`,
   * 404 → `false`; anything else throws. Retried like a read. The token never appears in logs or errors.
   */
  async validateWebhookToken(serviceToken: string): Promise<boolean> {
    const operation = 'validateWebhookToken';
    validateInput(WEBHOOK_TOKEN, { serviceToken }, { operation });
    return this.call(
      operation,
      undefined,
      (p) => ({
        method: 'OPTIONS',
        path: p.paths.webhooks,
        body: { token: serviceToken },
        safety: 'read',
        secrets: [serviceToken],
        passStatuses: [404],
      }),
      (_r, answer) => answer.status !== 404,
    );
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
    const { url, events, webhook } = validateInput<typeof params>(RESEND_WEBHOOK, params, { operation });
    return this.call(
      operation,
      undefined,
      async (p, conn): Promise<Planned> => {
        await assertResendAllowed(conn, url, { operation }, this.options.lookup);
        return { method: 'COPY', path: p.paths.webhooks, body: { url, events, webhook }, safety: 'write' };
      },
      (r, answer) => readResendResult(r, answer.body),
    );
  }

  /** Exchanges client credentials for an access token (profile `authenticate`, A5 by default). */
  async authenticate(params: { clientId: string; clientSecret: string }): Promise<AccessToken> {
    const operation = 'authenticate';
    const { clientId, clientSecret } = validateInput<typeof params>(AUTHENTICATE, params, { operation });
    const auth = (p: WireProfile) => p.authenticate ?? unsupported(operation, 'an authenticate operation');
    const plan = (p: WireProfile): Planned => {
      const { method, path, credentials, body } = auth(p);
      const planned: Planned = { method, path, safety: 'write', secrets: [clientSecret] };
      if (credentials === 'basic') planned.basic = { user: clientId, password: clientSecret };
      else
        planned.body = renderTemplate(
          body ?? { client_id: '{client_id}', client_secret: '{client_secret}' },
          {
            client_id: clientId,
            client_secret: clientSecret,
          },
        );
      return planned;
    };
    return this.call(
      operation,
      undefined,
      plan,
      (r, answer, p) => readAccessToken(r, answer.body, auth(p).answer),
      false,
    );
  }

  /** Whether the configured access token is active, its scopes and expiry (profile `credentialStatus`, A5). */
  async credentialStatus(): Promise<CredentialStatus> {
    const operation = 'credentialStatus';
    const status = (p: WireProfile) =>
      p.credentialStatus ?? unsupported(operation, 'a credential-status operation');
    return this.call(
      operation,
      undefined,
      (p) => ({ method: 'GET', path: status(p).path, safety: 'read' }),
      (r, answer, p) => readCredentialStatus(r, answer.body, status(p).answer),
    );
  }

  /**
   * Whether the token holds a write scope, without writing: sends the profile's probe for it, an invalid request the
   * service must refuse. 400/422 → `ok` (it got past authentication and scope), 401 → `unauthorized`, 403 →
   * `missing_scope`; a 2xx (the service accepted an invalid request) or anything else → `error`.
   */
  async probeScope(scope: WriteScope): Promise<ScopeProbeResult> {
    const operation = 'probeScope';
    const { conn, profile } = await this.context(operation);
    const { method, path, body } = profile.credentialProbes[scope];
    try {
      const answer = await this.send({ operation, method, path, body, safety: 'write', scope }, conn);
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
}
