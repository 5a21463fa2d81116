import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth } from './auth';
import { handleCardScript } from './card-script';
import { DEFAULT_ACCOUNT_ID, DEFAULT_GATEWAY_NAME, ISSUED_TOKEN_LIFETIME_SECONDS } from './constants';
import { checkControlAccess } from './control-access';
import { DEFAULT_TIME_ZONE, isTimeZone } from './dates';
import { createControls, handleControl, type ControlDeps } from './controls';
import { Timers, type Core, type RouteResult } from './core';
import { SandboxError } from './errors';
import { Faults } from './faults';
import { readBody, sendJson, sendRaw } from './http';
import { Invoices } from './invoices';
import { Lifecycle } from './lifecycle';
import { handleApi, noRoute, type ApiDeps } from './routes';
import { errorBody, type RenderContext } from './shapes';
import { Store } from './store';
import type { SandboxOptions, SandboxServer } from './types';
import { WebhookRegistry } from './webhook-registry';
import { Deliveries } from './webhooks';

/** How often open invoices are checked against the clock besides on every request. */
const DUE_DATE_SWEEP_MS = 60_000;

/**
 * Starts a sandbox of the payment service on 127.0.0.1: the interface of the spec with the conventions of
 * `docs/gateway-assumptions.md`, webhooks to real URLs, and test controls under `/_sandbox`.
 *
 * @example
 * const sandbox = await startSandbox({ webhookRetry: { baseDelayMs: 10 } });
 * const res = await fetch(`${sandbox.url}/invoices`, { headers: { Authorization: 'Bearer sandbox-token' } });
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxServer> {
  const now = options.clock ?? (() => new Date());
  const timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
  if (!isTimeZone(timeZone)) throw new Error(`startSandbox: timeZone "${timeZone}" is not an IANA time zone`);
  const productDiscount = options.productDiscount ?? 'line';
  if (productDiscount !== 'line' && productDiscount !== 'unit') {
    throw new Error(`startSandbox: productDiscount "${String(productDiscount)}" must be line or unit`);
  }
  const gatewayName = options.gatewayName ?? DEFAULT_GATEWAY_NAME;
  const store = Store.open(options.persistPath);
  const timers = new Timers();
  let baseUrl = '';
  const render = (): RenderContext => ({ baseUrl, now: now(), by: gatewayName, timeZone });
  const core: Core = {
    store,
    timers,
    now,
    timeZone,
    productDiscount,
    render,
    emit: (event, rec) => deliveries.emit(event, rec, registry.list()),
    autoProcessCards: options.autoProcessCards ?? true,
    cardProcessingDelayMs: options.cardProcessingDelayMs ?? 5,
  };
  const retry = options.webhookRetry ?? {};
  const deliveries = new Deliveries(core, {
    accountId: options.accountId ?? DEFAULT_ACCOUNT_ID,
    gatewayName,
    attempts: retry.attempts ?? 5,
    baseDelayMs: retry.baseDelayMs ?? 200,
    factor: retry.factor ?? 2,
    timeoutMs: retry.timeoutMs ?? 5000,
  });
  const registry = new WebhookRegistry(store, deliveries, now, timeZone);
  const auth = new Auth(store, {
    tokens: options.tokens,
    clients: options.clients,
    issuedLifetimeSeconds: options.issuedTokenLifetimeSeconds ?? ISSUED_TOKEN_LIFETIME_SECONDS,
    now,
  });
  const lifecycle = new Lifecycle(core);
  const faults = new Faults();
  const api: ApiDeps = { core, auth, invoices: new Invoices(core, lifecycle), lifecycle, registry };
  const controlDeps: ControlDeps = {
    core,
    auth,
    lifecycle,
    deliveries,
    registry,
    faults,
    reset: async () => {
      timers.cancelAll();
      deliveries.reset();
      faults.clear();
      store.reset(WebhookRegistry.keepOnReset);
    },
  };
  const controls = createControls(controlDeps);
  const controlAccess = { hosts: options.controlHosts ?? [], token: options.controlToken ?? null };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startedAt = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    res.on('finish', () =>
      options.log?.(`${method} ${path} ${res.statusCode} ${Math.round(performance.now() - startedAt)}ms`),
    );
    try {
      const raw = await readBody(req);
      // The shopper's browser: the card script and its endpoint, outside the API and the controls.
      const card = handleCardScript(core, method, path, raw);
      if (card) return write(res, card);
      if (path === '/_sandbox' || path.startsWith('/_sandbox/')) {
        checkControlAccess(req, path, controlAccess);
        const result = await handleControl(controlDeps, controls, req, path, raw);
        return write(res, result ?? fail(noRoute(method, path)));
      }
      lifecycle.sweepOverdue();
      const plan = faults.plan(method, path);
      // A reset or close during the wait drops the connection rather than leaving the client hanging.
      if (plan.latencyMs > 0 && !(await timers.sleep(plan.latencyMs))) return void req.socket.destroy();
      if (!plan.afterProcessing) {
        if (plan.action === 'hang') return;
        if (plan.action === 'drop') return void req.socket.destroy();
        if (plan.action === 'fail') throw plan.error;
      }
      const result = await handleApi(api, { req, method, path, query: url.searchParams, raw, startedAt });
      if (!result) throw noRoute(method, path);
      if (plan.afterProcessing) {
        // The write was carried out; its answer is lost (an error, no answer at all, or a dropped connection).
        result.after?.();
        if (plan.action === 'hang') return;
        if (plan.action === 'drop') return void req.socket.destroy();
        throw plan.error;
      }
      write(res, result);
    } catch (err) {
      if (res.headersSent) return void res.destroy();
      const known =
        err instanceof SandboxError
          ? err
          : new SandboxError(500, 'unavailable', 'the sandbox failed unexpectedly');
      if (!(err instanceof SandboxError))
        options.log?.(`error: ${err instanceof Error ? err.message : String(err)}`);
      sendJson(res, known.status, errorBody(render(), known), known.headers);
    }
  };

  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  const sweep = setInterval(() => lifecycle.sweepOverdue(), DUE_DATE_SWEEP_MS);
  sweep.unref();

  let closed: Promise<void> | null = null;
  return {
    url: baseUrl,
    port,
    controls,
    deliveries: () => deliveries.entries(),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        clearInterval(sweep);
        timers.stop();
        deliveries.stop();
        server.close(() => {
          store.close();
          resolve();
        });
        server.closeAllConnections();
      })),
  };
}

function fail(err: SandboxError): never {
  throw err;
}

function write(res: ServerResponse, result: RouteResult): void {
  if (result.after) res.once('finish', result.after);
  const type = result.headers?.['Content-Type'];
  if (type && !type.startsWith('application/json')) {
    sendRaw(res, result.status ?? 200, type, result.body as Buffer | string, result.headers);
  } else sendJson(res, result.status ?? 200, result.body, result.headers);
}
