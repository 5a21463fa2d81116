import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { boundedBody, readBoundedJson } from '../core/bounded-json';
import { createWebhookRoute, type DeliveryReceiver } from './webhooks.module';

/** A bare server running only the webhook route; what the route passes on is answered 299. */
async function serve(receive: DeliveryReceiver, readFirst = false) {
  const route = createWebhookRoute('hooks/in', receive);
  const server = http.createServer((req, res) => {
    const go = () =>
      route(req, res, () => {
        res.statusCode = 299;
        res.end('next');
      });
    if (!readFirst) return go();
    req.resume().on('end', go);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: string) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return { post, close: () => new Promise((r) => server.close(r)) };
}

/** A receiver that reads the body within 64 bytes and answers with what it read. */
const bounded: DeliveryReceiver = async (req) => {
  const read = await boundedBody(req, 64);
  if (!read.ok) return { status: read.status, body: { statusCode: read.status, message: read.message } };
  const text = 'body' in read ? read.body.toString() : '';
  return { status: 200, body: { received: true, id: text, duplicate: false, state: 'pending' } };
};

describe('the webhook route on Express', () => {
  it('answers what the receiver says, on the path and its suffix only', async () => {
    const s = await serve(bounded);
    try {
      const a = await s.post('/api/hooks/in', '{"a":1}');
      expect(a.status).toBe(200);
      expect(JSON.parse(a.text)).toEqual({
        received: true,
        id: '{"a":1}',
        duplicate: false,
        state: 'pending',
      });
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await s.post('/other', '{}')).status).toBe(299);
    } finally {
      await s.close();
    }
  });

  it('answers 500 without the failure when the receiver throws', async () => {
    const s = await serve(() => Promise.reject(new Error('db down at postgres://user:secret@host')));
    try {
      const failed = await s.post('/hooks/in', '{}');
      expect(failed.status).toBe(500);
      expect(JSON.parse(failed.text)).toEqual({ statusCode: 500, message: 'Internal server error' });
    } finally {
      await s.close();
    }
  });

  it('leaves a body a host middleware already read to the Nest route', async () => {
    const s = await serve(bounded, true);
    try {
      expect((await s.post('/hooks/in', '{}')).status).toBe(299);
    } finally {
      await s.close();
    }
  });
});

describe('boundedBody: the one bound on a delivery body', () => {
  it('answers 413 past the limit, for a request and for bytes alike', async () => {
    const s = await serve(bounded);
    try {
      const big = await s.post('/hooks/in', 'x'.repeat(65));
      expect(big.status).toBe(413);
      expect(JSON.parse(big.text)).toEqual({ statusCode: 413, message: 'body exceeds 64 bytes' });
    } finally {
      await s.close();
    }
    expect(await boundedBody(Buffer.alloc(65), 64)).toEqual({
      ok: false,
      status: 413,
      message: 'body exceeds 64 bytes',
    });
    expect(await boundedBody(Buffer.from('{}'), 64)).toEqual({ ok: true, body: Buffer.from('{}') });
    expect(await boundedBody({ a: 1 }, 64)).toEqual({ ok: true, parsed: { a: 1 } });
  });
});

/** A stream dressed as a request: what the body reader looks at is its headers and its stream state. */
function requestStream(headers: Record<string, string> = {}): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

describe('readBoundedJson: a body that cannot be read', () => {
  it('refuses a request whose stream fails mid-body with 400, unread, and leaves it flowing', async () => {
    const req = requestStream({ 'content-length': '64' });
    const read = readBoundedJson(req, 1024, 32);
    req.write('{"event":"invoice.update",');
    await new Promise((r) => setImmediate(r));
    req.emit('error', new Error('socket reset by peer'));
    expect(await read).toEqual({
      ok: false,
      status: 400,
      message: 'the body could not be read',
      unread: true,
    });
    // Resumed: the rest of a kept-alive connection's request is discarded, not left waiting.
    expect(req.readableFlowing).toBe(true);
  });

  it('refuses a request whose stream another reader already ended with 400, unread', async () => {
    const req = requestStream();
    req.end('{"event":"invoice.update"}');
    req.resume();
    await new Promise((r) => req.on('end', r));
    expect(await readBoundedJson(req, 1024, 32)).toEqual({
      ok: false,
      status: 400,
      message: 'the body was already consumed by another parser',
      unread: true,
    });
  });
});
