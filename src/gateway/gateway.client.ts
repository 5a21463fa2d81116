import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { GATEWAY_CLIENT_OPTIONS } from './constants';
import * as inputs from './dto/inputs';
import { validateInput } from './dto/validators';
import { isGatewayError } from './errors';
import { HttpAnswer, Planned, ref, unsupported } from './gateway.base';
import { GatewayLists } from './gateway.lists';
import type { GatewayClientOptions, GatewayConnection } from './gateway.options';
import { invoiceAnswer } from './invoice.normalizer';
import { centsToDecimalString, centsToWireNumber, formatBrl } from './money';
import * as readers from './payload.reader';
import type * as T from './types';
import { assertResendAllowed } from './webhook-destination';
import {
  renderTemplate,
  WireAuthenticate,
  WireCodes,
  WireProfile,
  WireRequestPlan,
  WriteScope,
} from './wire-profile';

export type ScopeProbeResult =
  { result: 'ok' | 'unauthorized' | 'missing_scope' } | { result: 'error'; message: string };

/** The store's only way to the service: every operation of spec §4; see `docs/gateway-assumptions.md`. */
@Injectable()
export class GatewayClient extends GatewayLists {
  constructor(@Inject(GATEWAY_CLIENT_OPTIONS) options: GatewayClientOptions, @Optional() http?: HttpService) {
    super(options, http);
  }

  /** How long a write other than creation may take (`timeouts.defaultMs`). */
  get writeTimeoutMs(): number {
    return this.timeouts.defaultMs;
  }

  /** How long a create request may take (`timeouts.createMs`). */
  get createTimeoutMs(): number {
    return this.timeouts.createMs;
  }

  /** Creates an invoice (§4.2); never retried once sent (a lost answer: `GatewayOutcomeUnknownError`). */
  async createInvoice(params: T.CreateInvoiceParams): Promise<T.Invoice> {
    const context = { operation: 'createInvoice', invoiceRef: ref('referrer', params, 'payment.referrer') };
    const dto = validateInput(inputs.CREATE_INVOICE, params, context, inputs.createInvoiceRules);
    const { referrer, method } = dto.payment;
    const body = (p: WireProfile) => toWireCreateInvoice(dto, p.codes);
    return this.call(
      context,
      (p) => ({ referrer, method: 'POST', path: p.paths.invoices, body: body(p), safety: 'create' }),
      (r, answer, p) => ({ ...invoiceAnswer(r, answer, p), method }),
    );
  }

  /** Moves the due day of a PIX or bank-slip invoice in status 1 or 15 (§4.3). A lost answer: outcome unknown. */
  async changeDueDate(params: { invoiceId: string; dueAt: string }): Promise<T.Invoice> {
    const context = { operation: 'changeDueDate', invoiceRef: ref('invoice_id', params, 'invoiceId') };
    const dto = validateInput<typeof params>(inputs.CHANGE_DUE_DATE, params, context);
    const body = { payment: { invoice_id: dto.invoiceId, due_at: dto.dueAt } };
    return this.call(context, invoiceWrite('PATCH', body), invoiceAnswer);
  }

  /** Cancels an invoice by its number `id` (§4.4). */
  async cancelInvoice(params: { id: string }): Promise<T.Invoice> {
    const context = { operation: 'cancelInvoice', invoiceRef: ref('id', params, 'id') };
    const dto = validateInput<typeof params>(inputs.CANCEL_INVOICE, params, context);
    return this.call(context, invoiceWrite('DELETE', { payment: { id: dto.id } }), invoiceAnswer);
  }

  /** Refunds all or part of a paid invoice (profile `refund`, A8); a lost answer: `GatewayOutcomeUnknownError`. */
  async refundInvoice(params: T.RefundParams): Promise<T.Invoice> {
    const context = { operation: 'refundInvoice', invoiceRef: ref('id', params, 'id') };
    const input = validateInput(inputs.REFUND, params, context, inputs.refundRules);
    return this.call(context, (p) => rendered(p.refund, refundValues(input)), invoiceAnswer);
  }

  /** Attaches a shipping tracking code (profile `tracking`, A9). */
  async addTrackingCode(params: T.TrackingParams): Promise<T.TrackingResult> {
    const context = { operation: 'addTrackingCode', invoiceRef: ref('invoice_id', params, 'invoiceId') };
    const input = validateInput<T.TrackingParams>(inputs.TRACKING, params, context);
    const values = { invoice_id: input.invoiceId, code: input.code, carrier: input.carrier, url: input.url };
    return this.call(
      context,
      (p) => rendered(p.tracking, values),
      (r, answer) => readers.readTracking(r, answer.body, input),
    );
  }

  /** The tracking code an invoice shows now (profile `readBack.trackingCode`), or `null`. */
  async findTrackingCode(invoiceId: string): Promise<string | null> {
    const operation = 'findTrackingCode';
    const path = (await this.context(operation, false, false)).profile.readBack.trackingCode;
    if (path === null) unsupported(operation, 'tracking code on its invoices (readBack.trackingCode)');
    const invoice = await this.findInvoiceById(invoiceId);
    return invoice ? readers.trackingCodeOf(invoice.raw, path) : null;
  }

  /** Whether a webhook's service token is the service's own (§4.7): 200 → `true`, 404 → `false`, else throws. */
  async validateWebhookToken(serviceToken: string): Promise<boolean> {
    const context = { operation: 'validateWebhookToken' };
    validateInput(inputs.WEBHOOK_TOKEN, { serviceToken }, context);
    const fixed = { body: { token: serviceToken }, secrets: [serviceToken], passStatuses: [404] };
    return this.call(
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
    return this.call(context, plan, (r, answer) => readers.readResendResult(r, answer.body));
  }

  /** Exchanges client credentials for an access token (profile `authenticate`, A5). */
  async authenticate(params: { clientId: string; clientSecret: string }): Promise<T.AccessToken> {
    const context = { operation: 'authenticate' };
    const input = validateInput<typeof params>(inputs.AUTHENTICATE, params, context);
    const auth = (p: WireProfile) =>
      p.authenticate ?? unsupported(context.operation, 'an authenticate operation');
    const read = (r: readers.PayloadReader, answer: HttpAnswer, p: WireProfile) =>
      readers.readAccessToken(r, answer.body, auth(p).answer);
    return this.call(context, (p) => authenticatePlan(auth(p), input), read, false);
  }

  /** Whether the access token is active, its scopes and expiry (profile `credentialStatus`, A5). */
  async credentialStatus(): Promise<T.CredentialStatus> {
    const context = { operation: 'credentialStatus' };
    const status = (p: WireProfile) =>
      p.credentialStatus ?? unsupported(context.operation, 'a credential-status operation');
    return this.call(
      context,
      (p) => ({ method: 'GET', path: status(p).path, safety: 'read' }),
      (r, answer, p) => readers.readCredentialStatus(r, answer.body, status(p).answer),
    );
  }

  /** Whether the token holds a write scope, by an invalid probe request: 400/422 → `ok`, 401, 403, else `error`. */
  async probeScope(scope: WriteScope): Promise<ScopeProbeResult> {
    const operation = 'probeScope';
    const { conn, profile } = await this.context(operation);
    const { method, path, body } = profile.credentialProbes[scope];
    try {
      const answer = await this.send(conn, { operation, method, path, body, safety: 'write', scope });
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
    return (await this.context('wireProfile', false, false)).profile;
  }
}

/** Validated `CreateInvoiceParams` → the §4.2 body (codes from the profile, exact decimal amounts, A1). */
function toWireCreateInvoice(params: T.CreateInvoiceParams, codes: WireCodes) {
  const { client, payment } = params;
  const body: Record<string, unknown> = {
    client: wireFields(client, inputs.CLIENT),
    payment: wireFields(payment, inputs.PAYMENT, {
      physical: ['product_type', (v: boolean) => codes.productTypes[v ? 'physical' : 'digital']],
      method: ['type', (v: T.PaymentMethod) => codes.paymentTypes[v]],
      products: ['products', (v: object[]) => v.map((p) => wireFields(p, inputs.PRODUCT, PRODUCT_NAMES))],
      card: ['card', (c: Card) => (payment.method === 'card' ? wireCard(c) : undefined)],
    }),
  };
  if (params.ecommerce)
    body.ecommerce = { store_id: params.ecommerce.storeId, checkout: params.ecommerce.checkout };
  if (params.shippingCents !== undefined) body.shipping = { amount: centsToWireNumber(params.shippingCents) };
  return body;
}

type WireField = [name: string, convert: (value: never) => unknown];
type Card = NonNullable<T.CreateInvoiceParams['payment']['card']>;

const same = (v: unknown) => v;
const wireCard = (c: Card) => ({
  saved: 0,
  tokenize: 0,
  token: c.token,
  valid: c.valid,
  holder: { name: c.holderName },
});

const PRODUCT_NAMES: Record<string, WireField> = {
  quantity: ['qnt', same],
  unitAmountCents: ['amount', centsToWireNumber],
};

/** `value`'s fields in its input rules' order, named by `names`, else by `wireName` (cents as wire numbers); an
 * absent one is left out. */
function wireFields(value: object, rules: object, names: Record<string, WireField> = {}) {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(rules)) {
    const [name, convert] = names[key] ?? [
      readers.wireName(key),
      key.endsWith('Cents') ? centsToWireNumber : same,
    ];
    const given = (value as Record<string, unknown>)[key];
    const wire = given === undefined ? undefined : convert(given as never);
    if (wire !== undefined) out[name] = wire;
  }
  return out;
}

const refundValues = ({ id, invoiceId, amountCents: cents }: T.RefundParams) => ({
  id,
  invoice_id: invoiceId,
  amount: centsToWireNumber(cents),
  amount_decimal: centsToDecimalString(cents),
  amount_cents: cents,
  amount_brl: formatBrl(cents),
});

/** A profile's request (refund, tracking) with its body rendered: a write that changes an invoice. */
function rendered(plan: WireRequestPlan, values: Record<string, unknown>): Planned {
  const body = typeof plan.body === 'function' ? plan.body(values) : renderTemplate(plan.body, values);
  return { method: plan.method, path: plan.path, body, safety: 'update' };
}

function authenticatePlan(
  auth: WireAuthenticate,
  { clientId: user, clientSecret: password }: { clientId: string; clientSecret: string },
): Planned {
  const planned: Planned = { method: auth.method, path: auth.path, safety: 'write', secrets: [password] };
  if (auth.credentials === 'basic') return { ...planned, basic: { user, password } };
  const template = auth.body ?? { client_id: '{client_id}', client_secret: '{client_secret}' };
  return { ...planned, body: renderTemplate(template, { client_id: user, client_secret: password }) };
}

/** A fixed body to the invoices path (due date, cancel). */
const invoiceWrite =
  (method: 'PATCH' | 'DELETE', body: unknown) =>
  (p: WireProfile): Planned => ({ method, path: p.paths.invoices, body, safety: 'update' });
