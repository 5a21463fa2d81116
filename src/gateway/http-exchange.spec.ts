import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExchangeFailure, nodeExchange, proxyConfigured } from './http-exchange';

/** A server that answers each path as `routes` says, recording what it was sent. */
async function serve(routes: Record<string, (res: http.ServerResponse) => void>) {
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      (routes[(req.url ?? '').split('?')[0]] ?? ((r) => r.writeHead(404).end()))(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, close: () => new Promise((r) => server.close(r)) };
}

const send = (exchange = nodeExchange(), url: string, body?: string, method = 'POST') =>
  exchange({
    method,
    url,
    headers: { Accept: 'application/json' },
    body,
    signal: new AbortController().signal,
  });

describe('nodeExchange', () => {
  it('sends the body with its length, any method, and reads JSON, text and empty answers as axios did', async () => {
    const s = await serve({
      '/json': (res) => res.writeHead(201, { 'Retry-After': '3' }).end('{"id":"7"}'),
      '/text': (res) => res.writeHead(502).end('<html>bad gateway</html>'),
      '/empty': (res) => res.writeHead(204).end(),
    });
    try {
      const json = await send(undefined, `${s.base}/json?id=1`, '{"a":1}', 'COPY');
      expect(json).toMatchObject({ status: 201, body: { id: '7' } });
      expect(json.headers['retry-after']).toBe('3');
      expect(s.seen[0]).toMatchObject({ method: 'COPY', url: '/json?id=1', body: '{"a":1}' });
      expect(s.seen[0].headers['content-length']).toBe('7');
      expect(s.seen[0].headers['user-agent']).toBe('nestjs-invoice-payments');
      expect(await send(undefined, `${s.base}/text`)).toMatchObject({
        status: 502,
        body: '<html>bad gateway</html>',
      });
      expect(await send(undefined, `${s.base}/empty`, undefined, 'GET')).toMatchObject({
        status: 204,
        body: '',
      });
    } finally {
      await s.close();
    }
  });

  it('does not follow a redirect, and refuses an answer past its bound without keeping it', async () => {
    const s = await serve({
      '/moved': (res) => res.writeHead(302, { Location: 'http://elsewhere.example/' }).end(),
      '/big': (res) => res.writeHead(200).end('x'.repeat(2048)),
    });
    try {
      expect(await send(undefined, `${s.base}/moved`)).toMatchObject({ status: 302 });
      expect(s.seen).toHaveLength(1);
      const err = await send(nodeExchange(1024), `${s.base}/big`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExchangeFailure);
      expect(err).toMatchObject({ code: 'ERR_ANSWER_TOO_LARGE' });
    } finally {
      await s.close();
    }
  });

  it('names a refused connection by its code', async () => {
    const s = await serve({});
    await s.close();
    const err = await send(undefined, `${s.base}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeFailure);
    expect(err).toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('proxyConfigured', () => {
  it('is true when the environment names an HTTP proxy (the client then goes through axios)', () => {
    expect(proxyConfigured({})).toBe(false);
    expect(proxyConfigured({ HTTPS_PROXY: 'http://proxy:3128' })).toBe(true);
    expect(proxyConfigured({ http_proxy: 'http://proxy:3128' })).toBe(true);
    expect(proxyConfigured({ HTTP_PROXY: '' })).toBe(false);
  });
});
