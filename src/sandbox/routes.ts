import type { IncomingMessage } from 'node:http';
import type { Auth } from './auth';
import type { Core, RouteResult } from './core';
import { localDateTime } from './dates';
import { notFound } from './errors';
import { parseJsonObject } from './http';
import type { Invoices } from './invoices';
import type { Lifecycle } from './lifecycle';
import { listConsumers, listDisputes, listInvoices } from './listing';
import { legacyResponse } from './legacy-shape';
import { currentResponse, elapsedSeconds, envelope, renderCurrent } from './shapes';
import type { WebhookRegistry } from './webhook-registry';

export interface ApiDeps {
  core: Core;
  auth: Auth;
  invoices: Invoices;
  lifecycle: Lifecycle;
  registry: WebhookRegistry;
}

export interface ApiRequest {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  raw: string;
  /** `performance.now()` when the request arrived, for `__seconds`. */
  startedAt: number;
}

/**
 * The service's interface (§4, A5, A7–A10, A14): authentication first (401/403), then the body (400), then the
 * operation. Answers null for a path the service does not have.
 */
export async function handleApi(d: ApiDeps, r: ApiRequest): Promise<RouteResult | null> {
  const { auth, core, invoices } = d;
  const ctx = () => core.render();
  const body = () => parseJsonObject(r.raw);
  const page = <T>(type: string, field: string, list: { items: T[]; pagination: unknown }) => ({
    body: {
      ...envelope(ctx(), type),
      __seconds: elapsedSeconds(r.startedAt),
      [field]: list.items,
      pagination: list.pagination,
    },
  });
  switch (`${r.method} ${r.path}`) {
    case 'GET /auth/token': {
      const issued = auth.exchange(r.req);
      return {
        body: {
          ...envelope(ctx(), 'auth'),
          access_token: issued.token,
          token_type: 'Bearer',
          expires_in: issued.expiresIn,
          scopes: issued.scopes,
        },
      };
    }
    case 'GET /auth/status': {
      const caller = auth.require(r.req, null);
      const expiresAt =
        caller.expiresAt === null ? null : localDateTime(new Date(caller.expiresAt), core.timeZone);
      return {
        body: { ...envelope(ctx(), 'auth'), active: true, scopes: caller.scopes, expires_at: expiresAt },
      };
    }
    case 'GET /invoices': {
      auth.require(r.req, 'invoice.read');
      const list = listInvoices(core.store, r.query, core.timeZone);
      const c = ctx();
      return page('invoices', 'invoices', { ...list, items: list.items.map((inv) => renderCurrent(c, inv)) });
    }
    case 'POST /invoices': {
      auth.require(r.req, 'invoice.write');
      const rec = invoices.create(body());
      const after =
        rec.card && core.autoProcessCards ? () => d.lifecycle.scheduleCardProcessing(rec.id) : undefined;
      return { body: currentResponse(ctx(), rec, r.startedAt), after };
    }
    case 'PATCH /invoices':
      auth.require(r.req, 'invoice.update');
      return { body: legacyResponse(ctx(), invoices.changeDueDate(body()), 'due-date') };
    case 'DELETE /invoices':
      auth.require(r.req, 'invoice.update');
      return { body: legacyResponse(ctx(), invoices.cancel(body()), 'cancel') };
    case 'PUT /invoices':
      auth.require(r.req, 'invoice.refund');
      return { body: currentResponse(ctx(), invoices.refund(body()), r.startedAt) };
    case 'POST /invoices/tracking': {
      auth.require(r.req, 'invoice.update');
      const rec = invoices.track(body());
      const t = rec.tracking!;
      return {
        body: {
          ...envelope(ctx(), 'tracking'),
          tracking: {
            invoice_id: rec.invoiceId,
            code: t.code,
            carrier: t.carrier,
            url: t.url,
            created_at: localDateTime(new Date(t.createdAt), core.timeZone),
          },
        },
      };
    }
    case 'OPTIONS /webhooks':
      return { body: d.registry.validate(body()) };
    case 'COPY /webhooks':
      return { body: await d.registry.resend(body()) };
    case 'GET /consumers':
      auth.require(r.req, 'consumer.read');
      return page('consumers', 'consumers', listConsumers(core.store, r.query, core.timeZone));
    case 'GET /disputes/mediations':
      auth.require(r.req, 'dispute.read');
      return page('mediations', 'mediations', listDisputes(core.store, 'mediation', r.query, core.timeZone));
    case 'GET /disputes/chargebacks':
      auth.require(r.req, 'dispute.read');
      return page(
        'chargebacks',
        'chargebacks',
        listDisputes(core.store, 'chargeback', r.query, core.timeZone),
      );
    default:
      return null;
  }
}

/** 404 for a path or method the service does not have. */
export function noRoute(method: string, path: string) {
  return notFound(`no operation ${method} ${path}`);
}
