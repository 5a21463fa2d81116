import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookBodyReader, type EarlyAnswerer } from './webhook-body';

/** A bare server running only the body reader; what the reader passes on is answered 299. */
async function serve(answer?: EarlyAnswerer) {
  const reader = createWebhookBodyReader('hooks/in', 64, answer);
  const server = http.createServer((req, res) =>
    reader(req, res, () => {
      res.statusCode = 299;
      res.end('next');
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: string) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return { post, close: () => new Promise((r) => server.close(r)) };
}

describe('the webhook body reader', () => {
  it('answers what the answerer says, on the path and its suffix only', async () => {
    const seen: string[] = [];
    const s = await serve(async (_req, body) => {
      seen.push(body.toString());
      return { status: 200, body: { received: true, id: '7', duplicate: false, state: 'pending' } };
    });
    try {
      const a = await s.post('/api/hooks/in', '{"a":1}');
      expect(a.status).toBe(200);
      expect(JSON.parse(a.text)).toEqual({ received: true, id: '7', duplicate: false, state: 'pending' });
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await s.post('/other', '{}')).status).toBe(299);
      expect(seen).toEqual(['{"a":1}']);
    } finally {
      await s.close();
    }
  });

  it('answers 500 without the failure when the answerer throws, and 413 past the limit', async () => {
    const s = await serve(() => Promise.reject(new Error('db down at postgres://user:secret@host')));
    try {
      const failed = await s.post('/hooks/in', '{}');
      expect(failed.status).toBe(500);
      expect(JSON.parse(failed.text)).toEqual({ statusCode: 500, message: 'Internal server error' });
      const big = await s.post('/hooks/in', 'x'.repeat(65));
      expect(big.status).toBe(413);
      expect(JSON.parse(big.text)).toEqual({ statusCode: 413, message: 'body exceeds 64 bytes' });
    } finally {
      await s.close();
    }
  });

  it('passes the bytes on to the controller without an answerer', async () => {
    const s = await serve();
    try {
      expect((await s.post('/hooks/in', '{}')).status).toBe(299);
    } finally {
      await s.close();
    }
  });
});
