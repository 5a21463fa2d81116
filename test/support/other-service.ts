import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for a service that follows the spec but chose differently on every "not shown" part. It answers in
 * its own conventions and does the work through the sandbox behind it, so payments, webhooks and faults are real.
 * It imports nothing from `src/`: it is a second, independent picture of a service, written from its own
 * conventions (below), so the module is proven by configuration alone.
 *
 * Its conventions:
 * - invoices at `/v2/charges`, one invoice at `GET /v2/charges/{number}` → `{ charge }`;
 * - list query `pg`, `qtd`, `ref`, `num`, `situacao`, `pedido`, `desde`, `ate`; answer
 *   `{ ok, result: { charges | items }, paging: { current, count } }` (no page count, no page size);
 * - `payment.type` 10/20/30 (PIX, slip, card), `product_type` 7/8 (physical, digital);
 * - a PIX answer carries a bank-slip block too;
 * - a product's `discount` is each unit's, not the line's (the sandbox behind it started with
 *   `productDiscount: 'unit'`: this stand-in passes products on as they came);
 * - refund `POST /v2/charges/refunds` `{ charge, value_cents }`; tracking `POST /v2/shipments`
 *   `{ charge_id, code, carrier, url }` answering `{ ok: true }`;
 * - no authenticate or credential-status operation (404);
 * - webhook body `{ evento, id_entrega, origem, enviado_em, dados: { cobranca: <invoice> } }`.
 */
export interface OtherService {
  url: string;
  /** Requests it received, in its own conventions (method, path with query). */
  received: Array<{ method: string; path: string; body: unknown }>;
  close(): Promise<void>;
}

const PAYMENT_TYPES: Record<number, number> = { 10: 1, 20: 2, 30: 3 };
const PRODUCT_TYPES: Record<number, number> = { 7: 1, 8: 2 };
const LIST_QUERY: Record<string, string> = {
  pg: 'page',
  qtd: 'limit',
  ref: 'referrer',
  num: 'id',
  situacao: 'status',
  pedido: 'payment_id',
  desde: 'created_from',
  ate: 'created_to',
};
const LISTS: Record<string, [string, string]> = {
  '/v2/charges': ['/invoices', 'invoices'],
  '/v2/customers': ['/consumers', 'consumers'],
  '/v2/disputes/mediations': ['/disputes/mediations', 'mediations'],
  '/v2/disputes/chargebacks': ['/disputes/chargebacks', 'chargebacks'],
};

type Json = Record<string, unknown>;
type Answer = { status: number; body: unknown };

export async function startOtherService(sandboxUrl: string): Promise<OtherService> {
  const received: OtherService['received'] = [];
  let self = '';

  const sandbox = async (method: string, path: string, auth: string | undefined, body?: unknown) => {
    const res = await fetch(`${sandboxUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
  };

  const list = async (path: string, query: URLSearchParams, auth?: string): Promise<Answer> => {
    const [target, field] = LISTS[path];
    const q = new URLSearchParams();
    for (const [k, v] of query) if (LIST_QUERY[k]) q.set(LIST_QUERY[k], v);
    const r = await sandbox('GET', `${target}?${q}`, auth);
    if (r.status !== 200) return r;
    const b = r.body as Json & { pagination: { page: number; total: number } };
    const items = b[field] as Json[];
    const key = field === 'invoices' ? 'charges' : 'items';
    const shown = field === 'invoices' ? items.map((i) => withSlipBlock(i)) : items;
    return {
      status: 200,
      body: {
        ok: true,
        result: { [key]: shown },
        paging: { current: b.pagination.page, count: b.pagination.total },
      },
    };
  };

  const findAtSandbox = async (number: string, auth?: string): Promise<Json | null> => {
    const r = await sandbox('GET', `/invoices?id=${encodeURIComponent(number)}`, auth);
    const items = (r.body as { invoices?: Json[] } | null)?.invoices ?? [];
    return items[0] ?? null;
  };

  const route = async (req: http.IncomingMessage, raw: string): Promise<Answer> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization;
    const body = raw ? (JSON.parse(raw) as Json) : {};
    const method = req.method ?? 'GET';
    received.push({ method, path: `${url.pathname}${url.search}`, body: raw ? body : undefined });

    if (url.pathname === '/_relay') return relay(req, url.searchParams.get('to') ?? '', body);
    if (method === 'GET' && LISTS[url.pathname]) return list(url.pathname, url.searchParams, auth);
    const one = /^\/v2\/charges\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && one) {
      const r = await sandbox('GET', '/invoices?limit=1', auth); // the token and scope, checked by the sandbox
      if (r.status !== 200) return r;
      const found = await findAtSandbox(decodeURIComponent(one[1]), auth);
      return found
        ? { status: 200, body: { ok: true, charge: withSlipBlock(found) } }
        : { status: 404, body: { ok: false } };
    }
    if (url.pathname === '/v2/charges' && method === 'POST') {
      const payment = (body.payment ?? {}) as Json;
      const pix = payment.type === 10;
      if (typeof payment.type === 'number') payment.type = PAYMENT_TYPES[payment.type] ?? 99;
      if (typeof payment.product_type === 'number')
        payment.product_type = PRODUCT_TYPES[payment.product_type] ?? 99;
      if (typeof payment.webhook === 'string')
        payment.webhook = `${self}/_relay?to=${encodeURIComponent(payment.webhook)}`;
      const r = await sandbox('POST', '/invoices', auth, body);
      if (r.status === 200 && pix) (r.body as Json).invoice = withSlipBlock((r.body as Json).invoice as Json);
      return r;
    }
    if (url.pathname === '/v2/charges' && (method === 'PATCH' || method === 'DELETE'))
      return sandbox(method, '/invoices', auth, body);
    if (url.pathname === '/v2/charges/refunds' && method === 'POST') {
      const number = typeof body.charge === 'string' ? body.charge : null;
      const cents = typeof body.value_cents === 'number' ? body.value_cents : null;
      // Incomplete: the sandbox checks the token and scope, then refuses the body.
      if (number === null || cents === null) return sandbox('PUT', '/invoices', auth, { payment: {} });
      const inv = await findAtSandbox(number, auth);
      const reais = `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
      const wire = `{"payment":{"id":${JSON.stringify(number)},"invoice_id":${JSON.stringify(inv?.invoice_id ?? '')},"amount":${reais}}}`;
      return sandbox('PUT', '/invoices', auth, wire);
    }
    if (url.pathname === '/v2/shipments' && method === 'POST') {
      const tracking = { code: body.code, carrier: body.carrier, url: body.url };
      const r = await sandbox('POST', '/invoices/tracking', auth, {
        payment: { invoice_id: body.charge_id },
        tracking,
      });
      return r.status === 200 ? { status: 200, body: { ok: true } } : r;
    }
    if (url.pathname === '/webhooks' && (method === 'OPTIONS' || method === 'COPY'))
      return sandbox(method, '/webhooks', auth, body);
    return { status: 404, body: { ok: false, message: 'no such operation' } };
  };

  /** A sandbox delivery, reshaped into this service's webhook body, sent on with its headers. */
  const relay = async (req: http.IncomingMessage, to: string, body: Json): Promise<Answer> => {
    const reshaped = {
      evento: body.event,
      id_entrega: body.delivery_id,
      origem: body.webhook,
      enviado_em: body.sent_at,
      ...(body.test === true ? { teste: true } : {}),
      dados: { cobranca: body.invoice },
    };
    const target = new URL(to);
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
    for (const name of ['userid', 'gateway']) if (req.headers[name]) headers[name] = req.headers[name];
    headers.webhook = req.headersDistinct.webhook ?? [];
    return new Promise((resolve) => {
      const out = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 502, body: { relayed: true } }));
        },
      );
      out.on('error', () => resolve({ status: 502, body: { relayed: false } }));
      out.end(JSON.stringify(reshaped));
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      route(req, Buffer.concat(chunks).toString('utf8'))
        .catch((err: unknown) => ({ status: 500, body: { ok: false, message: String(err) } }))
        .then(({ status, body }) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(body === null ? '' : JSON.stringify(body));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A bank-slip block on a PIX invoice: this service sends one on every answer. */
function withSlipBlock(invoice: Json): Json {
  if (invoice.billet) return invoice;
  return {
    ...invoice,
    billet: {
      line: '00190.00009 01234.567890 12345.678901 1 00000000000000',
      barcode: '0019',
      download: null,
      image: null,
    },
  };
}

/**
 * The wire profile of this service, as a store would save it in the admin settings (plain data). Written here by
 * hand from the conventions above, not derived from the module's code.
 */
export const OTHER_SERVICE_PROFILE = {
  paths: {
    invoices: '/v2/charges',
    consumers: '/v2/customers',
    mediations: '/v2/disputes/mediations',
    chargebacks: '/v2/disputes/chargebacks',
  },
  codes: { paymentTypes: { pix: 10, billet: 20, card: 30 }, productTypes: { physical: 7, digital: 8 } },
  list: {
    query: {
      page: 'pg',
      limit: 'qtd',
      referrer: 'ref',
      id: 'num',
      status: 'situacao',
      paymentId: 'pedido',
      createdFrom: 'desde',
      createdTo: 'ate',
    },
    items: {
      invoices: 'result.charges',
      consumers: 'result.items',
      mediations: 'result.items',
      chargebacks: 'result.items',
    },
    page: 'paging.current',
    pages: null,
    total: 'paging.count',
    limit: null,
  },
  lookup: { byReferrer: { list: 'referrer' }, byId: { get: '/v2/charges/{id}', at: 'charge' } },
  refund: {
    method: 'POST',
    path: '/v2/charges/refunds',
    body: { charge: '{id}', value_cents: '{amount_cents}' },
  },
  tracking: {
    method: 'POST',
    path: '/v2/shipments',
    body: { charge_id: '{invoice_id}', code: '{code}', carrier: '{carrier}', url: '{url}' },
  },
  authenticate: null,
  credentialStatus: null,
  credentialProbes: {
    'invoice.write': { method: 'POST', path: '/v2/charges', body: {} },
    'invoice.update': { method: 'DELETE', path: '/v2/charges', body: { payment: {} } },
    'invoice.refund': { method: 'POST', path: '/v2/charges/refunds', body: {} },
  },
  webhook: {
    invoice: ['dados.cobranca'],
    event: ['evento'],
    deliveryId: ['id_entrega'],
    webhookId: ['origem'],
    sentAt: ['enviado_em'],
    test: ['teste'],
  },
  productDiscount: 'unit',
} as const;
