import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLOCK, type Clock, systemClock } from '../domain/clock';
import * as answers from './answers.reader';
import * as inputs from './dto/inputs';
import { validateInput } from './dto/validators';
import { GatewayNotFoundError, GatewayUnsupportedError, isGatewayError } from './errors';
import {
  GATEWAY_CALL_OBSERVER,
  GATEWAY_CLIENT_OPTIONS,
  GATEWAY_CONNECTION_SOURCE,
  type GatewayCallObserver,
  type GatewayClientOptions,
  type GatewayConnection,
  type GatewayConnectionSource,
} from './gateway.options';
import { GatewayTransport, type Planned, type Read } from './gateway.transport';
import { invoiceAnswer, readInvoice } from './invoice.reader';
import { valueAt } from './json';
import type * as T from './types';
import { assertResendAllowed } from './webhook-destination';
import type { WireProfile, WriteScope } from './wire-profile';
import * as requests from './wire-requests';

/** Pages a lookup walking a list reads at most, unless its profile says (`lookup.*.maxPages`). */
const LOOKUP_MAX_PAGES = 100;

export type ScopeProbeResult =
  { result: 'ok' | 'unauthorized' | 'missing_scope' } | { result: 'error'; message: string };

/**
 * The store's only way to the service: every operation of spec §4, shaped as the service's resources, each checking
 * its input and planning its request; `GatewayTransport` sends it. See `docs/gateway-assumptions.md`.
 */
@Injectable()
export class GatewayClient {
  private readonly transport: GatewayTransport;

  constructor(
    @Inject(GATEWAY_CLIENT_OPTIONS) private readonly options: GatewayClientOptions,
    @Optional() http?: HttpService,
    @Optional() @Inject(GATEWAY_CALL_OBSERVER) observer?: GatewayCallObserver,
    // Optional because tests, the bench and the shipping support build a client by hand.
    @Optional() @Inject(CLOCK) clock: Clock = systemClock,
    // The connection in force before every call (the module's: the admin settings); without one, the options'.
    @Optional() @Inject(GATEWAY_CONNECTION_SOURCE) connection?: GatewayConnectionSource,
  ) {
    this.transport = new GatewayTransport(options, http, observer, clock, connection);
  }

  /** How long a write other than creation may take (`timeouts.defaultMs`). */
  get writeTimeoutMs(): number {
    return this.transport.timeouts.defaultMs;
  }

  /** How long a create request may take (`timeouts.createMs`). */
  get createTimeoutMs(): number {
    return this.transport.timeouts.createMs;
  }

  /** Creates an invoice (§4.2); never retried once sent (a lost answer: `GatewayOutcomeUnknownError`). */
  async createInvoice(params: T.CreateInvoiceParams): Promise<T.Invoice> {
    const context = { operation: 'createInvoice', invoiceRef: ref('referrer', params, 'payment.referrer') };
    const dto = validateInput(inputs.CREATE_INVOICE, params, context, inputs.createInvoiceRules);
    const { referrer, method } = dto.payment;
    const body = (p: WireProfile) => inputs.toWireCreateInvoice(dto, p);
    return this.transport.call(
      context,
      (p) => ({ referrer, method: 'POST', path: p.paths.invoices, body: body(p), safety: 'create' }),
      (r, answer, p) => ({ ...invoiceAnswer(r, answer, p), method }),
    );
  }

  /** The latest invoice whose `referrer` is exactly `referrer` (narrowed by `payment.id`, number), or `null`. */
  async findInvoiceByReferrer(
    referrer: string,
    options: { paymentId?: string; id?: string } = {},
  ): Promise<T.Invoice | null> {
    const matches = (inv: T.Invoice) =>
      inv.referrer === referrer && (options.id === undefined || inv.id === options.id);
    return this.lookup('findInvoiceByReferrer', 'referrer', referrer, matches, options.paymentId);
  }

  /** The invoice whose number or `invoice_id` is `id`, or `null`. */
  async findInvoiceById(id: string): Promise<T.Invoice | null> {
    return this.lookup('findInvoiceById', 'id', id, (inv) => inv.id === id || inv.invoiceId === id);
  }

  /** Moves the due day of a PIX or bank-slip invoice in status 1 or 15 (§4.3). A lost answer: outcome unknown. */
  async changeDueDate(params: { invoiceId: string; dueAt: string }): Promise<T.Invoice> {
    const context = { operation: 'changeDueDate', invoiceRef: ref('invoice_id', params, 'invoiceId') };
    const dto = validateInput<typeof params>(inputs.CHANGE_DUE_DATE, params, context);
    const body = { payment: { invoice_id: dto.invoiceId, due_at: dto.dueAt } };
    return this.transport.call(context, invoiceWrite('PATCH', body), invoiceAnswer);
  }

  /** Cancels an invoice by its number `id` (§4.4). */
  async cancelInvoice(params: { id: string }): Promise<T.Invoice> {
    const context = { operation: 'cancelInvoice', invoiceRef: ref('id', params, 'id') };
    const dto = validateInput<typeof params>(inputs.CANCEL_INVOICE, params, context);
    return this.transport.call(context, invoiceWrite('DELETE', { payment: { id: dto.id } }), invoiceAnswer);
  }

  /** Refunds all or part of a paid invoice (profile `refund`, A8); a lost answer: `GatewayOutcomeUnknownError`. */
  async refundInvoice(params: T.RefundParams): Promise<T.Invoice> {
    const context = { operation: 'refundInvoice', invoiceRef: ref('id', params, 'id') };
    const input = validateInput(inputs.REFUND, params, context, inputs.refundRules);
    return this.transport.call(
      context,
      (p) => requests.renderedRequest(p.refund, requests.refundValues(input)),
      invoiceAnswer,
    );
  }

  /** Attaches a shipping tracking code (profile `tracking`, A9). */
  async addTrackingCode(params: T.TrackingParams): Promise<T.TrackingResult> {
    const context = { operation: 'addTrackingCode', invoiceRef: ref('invoice_id', params, 'invoiceId') };
    const input = validateInput<T.TrackingParams>(inputs.TRACKING, params, context);
    const values = { invoice_id: input.invoiceId, code: input.code, carrier: input.carrier, url: input.url };
    const read: Read<T.TrackingResult> = (r, answer) => answers.readTracking(r, answer.body, input);
    return this.transport.call(context, (p) => requests.renderedRequest(p.tracking, values), read);
  }

  /** The tracking code an invoice shows now (profile `readBack.trackingCode`), or `null`. */
  async findTrackingCode(invoiceId: string): Promise<string | null> {
    const path = (await this.wireProfile()).readBack.trackingCode;
    if (path === null)
      unsupported('findTrackingCode', 'tracking code on its invoices (readBack.trackingCode)');
    const invoice = await this.findInvoiceById(invoiceId);
    return invoice ? answers.trackingCodeOf(invoice.raw, path) : null;
  }

  /** Whether a webhook's service token is the service's own (§4.7): 200 → `true`, 404 → `false`, else throws. */
  async validateWebhookToken(serviceToken: string): Promise<boolean> {
    const context = { operation: 'validateWebhookToken' };
    validateInput(inputs.WEBHOOK_TOKEN, { serviceToken }, context);
    const fixed = { body: { token: serviceToken }, secrets: [serviceToken], passStatuses: [404] };
    return this.transport.call(
      context,
      (p) => ({ ...fixed, method: 'OPTIONS', path: p.paths.webhooks, safety: 'read' }),
      (_r, answer) => answer.status !== 404,
    );
  }

  /** Delivers the latest `events` delivery of `webhook` to `url` again (§4.8). Tests only: refused in production. */
  async resendWebhook(params: {
    url: string;
    events: string;
    webhook: string;
  }): Promise<T.ResendWebhookResult> {
    const context = { operation: 'resendWebhook' };
    const body = validateInput<typeof params>(inputs.RESEND_WEBHOOK, params, context);
    const plan = async (p: WireProfile, conn: GatewayConnection): Promise<Planned> => {
      await assertResendAllowed(conn, body.url, context, this.options.lookup);
      return { method: 'COPY', path: p.paths.webhooks, body, safety: 'write' };
    };
    return this.transport.call(context, plan, (r, answer) => answers.readResendResult(r, answer.body));
  }

  /** One page of invoices (A7), oldest first. `limit` 1..100, default 100. */
  async listInvoices(params: T.ListInvoicesParams = {}): Promise<T.Page<T.Invoice>> {
    return this.transport.page({ operation: 'listInvoices' }, 'invoices', params, readInvoice);
  }

  /** Every invoice matching the filters, fetched one page at a time as the iteration advances. */
  iterateInvoices(params: Omit<T.ListInvoicesParams, 'page'> = {}): AsyncIterableIterator<T.Invoice> {
    return this.transport.invoicePages({ operation: 'iterateInvoices' }, params);
  }

  /** One page of customers (A10). */
  async listConsumers(params: { page?: number; limit?: number } = {}): Promise<T.Page<T.Consumer>> {
    return this.transport.page({ operation: 'listConsumers' }, 'consumers', params, answers.readConsumer);
  }

  /** One page of mediations (A10). */
  async listMediations(params: { page?: number; limit?: number } = {}): Promise<T.Page<T.Dispute>> {
    return this.transport.page({ operation: 'listMediations' }, 'mediations', params, answers.readDispute);
  }

  /** One page of chargebacks (A10). */
  async listChargebacks(params: { page?: number; limit?: number } = {}): Promise<T.Page<T.Dispute>> {
    return this.transport.page({ operation: 'listChargebacks' }, 'chargebacks', params, answers.readDispute);
  }

  /** Exchanges client credentials for an access token (profile `authenticate`, A5). */
  async authenticate(params: { clientId: string; clientSecret: string }): Promise<T.AccessToken> {
    const context = { operation: 'authenticate' };
    const input = validateInput<typeof params>(inputs.AUTHENTICATE, params, context);
    const auth = (p: WireProfile) =>
      p.authenticate ?? unsupported(context.operation, 'an authenticate operation');
    const read: Read<T.AccessToken> = (r, answer, p) =>
      answers.readAccessToken(r, answer.body, auth(p).answer);
    const plan = (p: WireProfile) =>
      requests.authenticateRequest(auth(p), input.clientId, input.clientSecret);
    return this.transport.call(context, plan, read, false);
  }

  /** Whether the access token is active, its scopes and expiry (profile `credentialStatus`, A5). */
  async credentialStatus(): Promise<T.CredentialStatus> {
    const context = { operation: 'credentialStatus' };
    const status = (p: WireProfile) =>
      p.credentialStatus ?? unsupported(context.operation, 'a credential-status operation');
    const read: Read<T.CredentialStatus> = (r, answer, p) =>
      answers.readCredentialStatus(r, answer.body, status(p).answer);
    const plan = (p: WireProfile): Planned => ({ method: 'GET', path: status(p).path, safety: 'read' });
    return this.transport.call(context, plan, read);
  }

  /** Whether the token holds a write scope, by an invalid probe request: 400/422 → `ok`, 401, 403, else `error`. */
  async probeScope(scope: WriteScope): Promise<ScopeProbeResult> {
    const operation = 'probeScope';
    const { conn, profile } = await this.transport.context(operation);
    const { method, path, body } = profile.credentialProbes[scope];
    try {
      const probe = { operation, method, path, body, safety: 'write' as const, scope };
      const answer = await this.transport.send(conn, probe);
      return { result: 'error', message: `the service accepted the probe (HTTP ${answer.status})` };
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      if (err.kind === 'validation' && err.sent) return { result: 'ok' };
      if (err.kind === 'authentication') return { result: 'unauthorized' };
      if (err.kind === 'scope') return { result: 'missing_scope' };
      return { result: 'error', message: err.message };
    }
  }

  /** The wire profile in force: the options' profile with the admin settings' overrides on top. */
  async wireProfile(): Promise<WireProfile> {
    return (await this.transport.context('wireProfile', false, false)).profile;
  }

  /** The address calls go to now (unchecked: it may be empty or invalid until the store is configured). */
  async baseUrl(): Promise<string> {
    return (await this.transport.context('baseUrl', false, false)).conn?.baseUrl ?? '';
  }

  /** One invoice by `key` as the profile's lookup says; `paymentId` goes to the service (invoices do not carry it). */
  private async lookup(
    operation: string,
    key: 'referrer' | 'id',
    value: string,
    matches: (invoice: T.Invoice) => boolean,
    paymentId?: string,
  ): Promise<T.Invoice | null> {
    const context = { operation, invoiceRef: ref(key, value) };
    const byPayment = paymentId === undefined ? {} : { paymentId };
    const given = { [key]: value, ...byPayment };
    validateInput(inputs.lookupInput(Object.keys(given)), given, { operation });
    const ctx = await this.transport.context(operation);
    const plan = ctx.profile.lookup[key === 'referrer' ? 'byReferrer' : 'byId'];
    if ('get' in plan) {
      const get = () => requests.lookupRequest(plan.get, key, value, paymentId);
      const read: Read<T.Invoice> = (r, answer, p) =>
        invoiceAnswer(r, { body: valueAt(answer.body, plan.at ?? '') }, p);
      const invoice = await this.transport.call(context, get, read, true, ctx).catch((err: unknown) => {
        if (err instanceof GatewayNotFoundError) return null;
        throw err;
      });
      return invoice && matches(invoice) ? invoice : null;
    }
    const filters = { ...byPayment, [plan.list]: value };
    const pages = this.transport.invoicePages(context, filters, plan.maxPages ?? LOOKUP_MAX_PAGES, ctx);
    let found: T.Invoice | null = null;
    for await (const invoice of pages) {
      if (matches(invoice)) found = invoice;
    }
    return found;
  }
}

/** A fixed body to the invoices path (due date, cancel). */
function invoiceWrite(method: 'PATCH' | 'DELETE', body: unknown) {
  return (p: WireProfile): Planned => ({ method, path: p.paths.invoices, body, safety: 'update' });
}

function unsupported(operation: string, what: string): never {
  const detail = `the wire profile says the service has no ${what}; nothing was sent`;
  throw new GatewayUnsupportedError({ operation }, detail);
}

/** `key=value` reference of an invoice, from input (the value at `path`) that may not be valid yet. */
function ref(key: string, input: unknown, path?: string): string | undefined {
  const value = path === undefined ? input : valueAt(input, path);
  return typeof value === 'string' || typeof value === 'number' ? `${key}=${value}` : undefined;
}
