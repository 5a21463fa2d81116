import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCpf } from '@brazilian-utils/brazilian-utils';

export const TOKEN = 'sandbox-token';

export interface Reply<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** One request to the sandbox over real HTTP; the body is sent as JSON unless it is already a string. */
export async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = TOKEN,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  // The controls take JSON only, bodiless requests included (a cross-origin page cannot send that type).
  const control = path.startsWith('/_sandbox') && method !== 'GET';
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined && !control ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

type Json = Record<string, unknown>;

/** A valid create body: a PIX invoice of R$ 21,00 (2 × 10,50) for a domestic customer. */
export function createBody(overrides: { client?: Json; payment?: Json; shipping?: Json } = {}): Json {
  return {
    client: { name: 'Ana Souza', document: generateCpf(), email: 'ana@example.com', ...overrides.client },
    payment: {
      type: 1,
      product_type: 2,
      id: 'order-1',
      referrer: 'order-1',
      products: [{ id: 'sku-1', title: 'Mug', qnt: 2, amount: 10.5, discount: 0 }],
      ...overrides.payment,
    },
    ...(overrides.shipping ? { shipping: overrides.shipping } : {}),
  };
}

export const ADDRESS = {
  street: 'Av. Paulista',
  number: '1000',
  district: 'Bela Vista',
  city: 'São Paulo',
  state: 'SP',
  zipcode: '01310100',
  country: 'BRA',
};

export interface Received {
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> & {
    delivery_id: string;
    event: string;
    invoice: { id: string; status: { code: number } } | null;
  };
}

/** A webhook receiver on loopback; `answer(n)` picks the status of the n-th request (0-based). */
export async function startReceiver(answer: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({
        rawHeaders: req.rawHeaders,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()) as Received['body'],
      });
      res.writeHead(answer(n), { 'Content-Type': 'application/json', 'X-Receiver': 'test' });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One raw request with `Host` and `Content-Type` exactly as given (fetch would set them itself): what a browser
 * page or a DNS-rebinding attacker sends.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // not JSON: the text is there
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
