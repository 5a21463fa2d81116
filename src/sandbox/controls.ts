import type { IncomingMessage } from 'node:http';
import type { Auth } from './auth';
import { createCardToken } from './cards';
import { ALL_SCOPES } from './constants';
import type { Core, RouteResult } from './core';
import { badRequest, invalidField, notFound } from './errors';
import type { Faults } from './faults';
import { isObject, parseJsonObject, type JsonObject } from './http';
import type { Lifecycle } from './lifecycle';
import { formatBrl } from './money';
import { paymentPage } from './page';
import { barcodeSvg, qrPng } from './payment-data';
import { renderCurrent } from './shapes';
import type { PaymentMethod, SandboxControls, SandboxInvoiceRecord } from './types';
import type { WebhookRegistry } from './webhook-registry';
import type { Deliveries } from './webhooks';
import { FieldCheck } from './validation';

export interface ControlDeps {
  core: Core;
  auth: Auth;
  lifecycle: Lifecycle;
  deliveries: Deliveries;
  registry: WebhookRegistry;
  faults: Faults;
  reset(): Promise<void>;
}

/** The in-process controls (`server.controls`). */
export function createControls(d: ControlDeps): SandboxControls {
  const { core, lifecycle, deliveries } = d;
  const render = (rec: SandboxInvoiceRecord) => renderCurrent(core.render(), rec);
  return {
    pay: async (id, options) => render(lifecycle.pay(id, options)),
    overdue: async (id) => render(lifecycle.overdue(id)),
    contest: async (id, options) => render(lifecycle.contest(id, options)),
    completeRefund: async (id) => render(lifecycle.completeRefund(id)),
    setStatus: async (id, code) => {
      if (!Number.isSafeInteger(code) || code < 0)
        throw invalidField('code', 'must be a non-negative integer');
      return render(lifecycle.setStatus(id, code));
    },
    getInvoice: (id) => {
      const rec = core.store.findInvoice(id);
      return rec && structuredClone(rec);
    },
    renderInvoice: (id) => {
      const rec = core.store.findInvoice(id);
      return rec && render(rec);
    },
    reset: () => d.reset(),
    deliveries: () => deliveries.entries(),
    waitForDeliveries: (timeoutMs) => deliveries.waitIdle(timeoutMs),
    createCardToken: (input) => createCardToken(core.store, input, core.now(), core.timeZone),
    registerWebhook: (input) => d.registry.register(input),
    webhooks: () => d.registry.list(),
    issueToken: (scopes, expiresInSeconds) => d.auth.issue(scopes, expiresInSeconds),
    addFault: (rule) => d.faults.add(rule),
    clearFaults: () => {
      d.faults.clear();
      deliveries.setFaults({});
    },
    faults: () => d.faults.list(),
    setWebhookFaults: (faults) => deliveries.setFaults(faults),
    releaseWebhooks: (order) => deliveries.release(order),
    checkDueDates: async () => lifecycle.sweepOverdue(),
  };
}

/** Routes under `/_sandbox` (A15): the HTTP twins of the controls, plus QR, slip and payment page assets. */
export async function handleControl(
  d: ControlDeps,
  controls: SandboxControls,
  req: IncomingMessage,
  path: string,
  raw: string,
): Promise<RouteResult | null> {
  const method = req.method ?? 'GET';
  const body = (): JsonObject => (raw.trim() === '' ? {} : parseJsonObject(raw));
  const ok = (extra: object): RouteResult => ({ body: { success: true, ...extra } });
  const invoice = /^\/_sandbox\/invoices\/([^/]+)(?:\/([a-z-]+))?$/.exec(path);
  if (invoice) {
    const [, id, action] = invoice;
    const key = decodePathPart(id);
    if (method === 'GET' && action === undefined) {
      const record = controls.getInvoice(key);
      if (!record) throw notFound(`no invoice ${key}`);
      return ok({ invoice: controls.renderInvoice(key), record });
    }
    if (method === 'GET' && action === 'page') {
      const current = controls.renderInvoice(key);
      const rec = controls.getInvoice(key);
      if (!current || !rec) throw notFound(`no invoice ${key}`);
      return {
        body: paymentPage(current, formatBrl(rec.grossCents)),
        headers: { 'Content-Type': 'text/html; charset=utf-8' },
      };
    }
    if (method !== 'POST') return null;
    if (action === 'pay') return ok({ invoice: await controls.pay(key, payOptions(body())) });
    if (action === 'overdue') return ok({ invoice: await controls.overdue(key) });
    if (action === 'contest') return ok({ invoice: await controls.contest(key, body()) });
    if (action === 'complete-refund') return ok({ invoice: await controls.completeRefund(key) });
    if (action === 'status') {
      const c = new FieldCheck();
      const code = c.integer(body(), 'code', 'code', { required: true, min: 0 });
      c.done();
      return ok({ invoice: await controls.setStatus(key, code as number) });
    }
    return null;
  }
  const asset = /^\/_sandbox\/(qr|billet)\/([^/]+)\.(png|svg)$/.exec(path);
  if (asset && method === 'GET') {
    const rec = d.core.store.findInvoice(decodePathPart(asset[2]));
    if (asset[1] === 'qr' && asset[3] === 'png' && rec?.pix) {
      return { body: await qrPng(rec.pix.payload), headers: { 'Content-Type': 'image/png' } };
    }
    if (asset[1] === 'billet' && asset[3] === 'svg' && rec?.billet) {
      return { body: barcodeSvg(rec.billet.barcode), headers: { 'Content-Type': 'image/svg+xml' } };
    }
    throw notFound(`no ${asset[1] === 'qr' ? 'PIX QR code' : 'bank slip'} for invoice ${asset[2]}`);
  }
  const route = `${method} ${path}`;
  switch (route) {
    case 'POST /_sandbox/card-tokens':
      return { body: controls.createCardToken(body() as never) };
    case 'POST /_sandbox/webhooks':
      return { body: publicHook(controls.registerWebhook(body() as never)) };
    case 'GET /_sandbox/webhooks':
      return ok({ webhooks: controls.webhooks().map(publicHook) });
    case 'POST /_sandbox/webhooks/release':
      return ok({ released: controls.releaseWebhooks(body().order === 'reverse' ? 'reverse' : 'fifo') });
    case 'POST /_sandbox/tokens':
      return { body: issueToken(controls, body()) };
    case 'POST /_sandbox/reset':
      await controls.reset();
      return ok({});
    case 'GET /_sandbox/deliveries':
      return ok({ deliveries: controls.deliveries() });
    case 'POST /_sandbox/deliveries/wait':
      await controls.waitForDeliveries(waitTimeout(body()));
      return ok({ deliveries: controls.deliveries() });
    case 'GET /_sandbox/faults':
      return ok({ faults: controls.faults(), webhooks: d.deliveries.currentFaults() });
    case 'POST /_sandbox/faults':
      return ok(addFaults(controls, d, body()));
    case 'POST /_sandbox/faults/webhooks':
      controls.setWebhookFaults(webhookFaults(body()));
      return ok({ webhooks: d.deliveries.currentFaults() });
    case 'DELETE /_sandbox/faults':
      controls.clearFaults();
      return ok({});
    case 'POST /_sandbox/check-due-dates':
      return ok({ moved: await controls.checkDueDates() });
    default:
      return null;
  }
}

/** A percent-encoded path segment; a malformed one (`%`, `%E0%A4%A`) is a 400, not a URIError (500). */
function decodePathPart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw badRequest('the path has a malformed percent-encoding');
  }
}

/** Longest wait of `POST /_sandbox/deliveries/wait`, in ms: a control never holds a connection for long. */
const MAX_WAIT_MS = 60_000;

/** `timeoutMs` of a wait: an integer from 0 to {@link MAX_WAIT_MS}, or absent (the default). */
function waitTimeout(body: JsonObject): number | undefined {
  const c = new FieldCheck();
  const timeoutMs = c.integer(body, 'timeoutMs', 'timeoutMs', { min: 0, max: MAX_WAIT_MS });
  c.done();
  return timeoutMs ?? undefined;
}

function publicHook(h: { id: string; url: string | null; token: string; merchantToken: string }) {
  return { id: h.id, url: h.url, token: h.token, merchant_token: h.merchantToken };
}

function payOptions(body: JsonObject): { method?: PaymentMethod; approved?: boolean; amountCents?: number } {
  const c = new FieldCheck();
  const method = c.string(body, 'method', 'method');
  if (method !== undefined && method !== null && !['pix', 'billet', 'card'].includes(method)) {
    c.fail('method', 'must be pix, billet or card');
  }
  if (body.approved !== undefined && typeof body.approved !== 'boolean')
    c.fail('approved', 'must be a boolean');
  const amount = body.amount_cents;
  if (amount !== undefined && !(Number.isSafeInteger(amount) && (amount as number) > 0))
    c.fail('amount_cents', 'must be a positive integer number of cents');
  c.done();
  return {
    method: (method ?? undefined) as PaymentMethod | undefined,
    approved: body.approved as boolean | undefined,
    amountCents: amount as number | undefined,
  };
}

/** `POST /_sandbox/faults`: an HTTP rule, and/or webhook faults under `webhooks`. */
function addFaults(controls: SandboxControls, d: ControlDeps, body: JsonObject) {
  const { webhooks, ...rule } = body;
  if (webhooks !== undefined && !isObject(webhooks)) throw invalidField('webhooks', 'must be an object');
  // Validate both parts before applying either, so a bad request changes nothing.
  const hookFaults = webhooks === undefined ? undefined : webhookFaults(webhooks as JsonObject);
  const fault = webhooks === undefined || Object.keys(rule).length > 0 ? controls.addFault(rule) : null;
  if (hookFaults) controls.setWebhookFaults(hookFaults);
  return { fault, webhooks: d.deliveries.currentFaults() };
}

function webhookFaults(body: JsonObject) {
  const c = new FieldCheck();
  const out = {
    drop: c.integer(body, 'drop', 'drop', { min: 0 }) ?? undefined,
    duplicate: c.integer(body, 'duplicate', 'duplicate', { min: 0 }) ?? undefined,
    reorder: c.integer(body, 'reorder', 'reorder', { min: 0 }) ?? undefined,
    hold: body.hold === undefined ? undefined : body.hold === true,
  };
  if (body.hold !== undefined && typeof body.hold !== 'boolean') c.fail('hold', 'must be a boolean');
  c.done();
  return out;
}

function issueToken(controls: SandboxControls, body: JsonObject) {
  const c = new FieldCheck();
  const scopes = body.scopes ?? [...ALL_SCOPES];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string'))
    c.fail('scopes', 'must be an array of strings');
  const expiresIn = c.integer(body, 'expires_in', 'expires_in', { min: 1 });
  c.done();
  const list = scopes as string[];
  return {
    success: true,
    access_token: controls.issueToken(list, expiresIn ?? undefined),
    scopes: list,
    expires_in: expiresIn ?? null,
  };
}
