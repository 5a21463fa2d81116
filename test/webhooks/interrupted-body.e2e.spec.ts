import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  openWebhooksDatabase,
  postDelivery,
  sandboxDeliveryParts,
  startWebhookApp,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/**
 * A client speaking HTTP/1.1 over one socket by hand: what an HTTP client library would not do (stop mid-body,
 * send a chunked body past the limit and go on with the same connection).
 */
function rawClient(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = Buffer.alloc(0);
  let closed = false;
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', () => {}); // a reset shows as `closed`

  /** The next answer on this socket: its status line, headers and a Content-Length body. */
  const answer = async (timeoutMs = 5_000): Promise<RawAnswer> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (received.length >= end + 4 + length) {
          const body = received.subarray(end + 4, end + 4 + length).toString('utf8');
          received = received.subarray(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (closed) throw new Error('the server closed the connection without an answer');
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        wake = () => {
          clearTimeout(timer);
          r();
        };
      });
    }
  };
  const connected = new Promise<void>((r) => socket.once('connect', () => r()));
  return {
    write: async (data: string | Buffer) => {
      await connected;
      await new Promise<void>((r, j) => socket.write(data, (err) => (err ? j(err) : r())));
    },
    answer,
    isClosed: () => closed,
    destroy: () => socket.destroy(),
  };
}

/** The head of a POST of a delivery to `path`, with the service's header lines and `framing` for its body. */
function deliveryHead(path: string, serviceToken: string, framing: string): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    'UserId: sandbox-account',
    'Gateway: sandbox',
    'Webhook: default',
    `Webhook: ${tokenLine('', serviceToken)}`,
    framing,
    '',
    '',
  ].join('\r\n');
}

/** A body whose reading fails part-way is refused and forgotten: nothing stored, nothing asked, the next served. */
describeEachDatabase('webhooks: a body interrupted while it is read', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  let invoice: WireInvoiceCurrent;
  let serviceToken: string;
  const requests: string[] = [];
  const PATH = '/interrupted/hook';

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({ log: (line) => requests.push(line) });
    app = await startWebhookApp(db, sandbox, { path: PATH, bodyLimitBytes: 4096 });
    ({ invoice, serviceToken } = await sandboxDeliveryParts(app.gateway, sandbox, db.dataSource));
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const delivery = (forInvoice = invoice) => ({
    event: 'invoice.update',
    delivery_id: randomUUID(),
    webhook: 'default',
    sent_at: '2026-11-21 10:00:00',
    invoice: forInvoice,
  });
  const openConnections = () =>
    new Promise<number>((r, j) =>
      app.app.getHttpServer().getConnections((err: Error | null, n: number) => (err ? j(err) : r(n))),
    );

  it('a client gone mid-body: nothing stored, no lookup, the next delivery on a new connection is taken', async () => {
    // An invoice of its own, so that a lookup of it could only come from the interrupted delivery.
    const own = await sandboxDeliveryParts(app.gateway, sandbox, db.dataSource);
    const cut = delivery(own.invoice);
    // The whole JSON is sent, but fewer bytes than announced: read as if complete, it would be a valid delivery.
    const text = JSON.stringify(cut);
    const head = deliveryHead(PATH, serviceToken, `Content-Length: ${Buffer.byteLength(text) + 64}`);
    let serverSide: Socket | undefined;
    app.app.getHttpServer().once('connection', (socket: Socket) => (serverSide = socket));
    const client = rawClient(app.url);
    await client.write(head);
    await client.write(text);
    // The server has read all that was sent and waits for the rest of the body.
    const sent = Buffer.byteLength(head) + Buffer.byteLength(text);
    await waitFor(() => (serverSide?.bytesRead ?? 0) >= sent, 5_000, 'the server read what was sent');
    client.destroy();
    await waitFor(async () => (await openConnections()) === 0, 5_000, 'the cut connection closed');

    const next = await postDelivery(app.url, PATH, delivery(), ['default', tokenLine('', serviceToken)]);
    expect(next.status).toBe(200);
    expect(await inbox().findOneBy({ id: next.body.id })).not.toBeNull();
    await app.settle();
    expect(await inbox().countBy({ deliveryId: cut.delivery_id })).toBe(0);
    expect(await inbox().countBy({ gatewayId: own.invoice.id })).toBe(0);
    expect(requests.filter((l) => l.startsWith(`GET /invoices/${own.invoice.id}`))).toEqual([]);
  });

  it('a chunked body over the limit is answered 413 and the same kept-alive connection answers the next', async () => {
    const before = await inbox().count();
    const client = rawClient(app.url);
    try {
      await client.write(deliveryHead(PATH, serviceToken, 'Transfer-Encoding: chunked'));
      // 1 MB in 64 KB chunks, with no Content-Length to refuse it by before reading: more than the server buffers
      // for a paused request, so the connection gets to the next request only if the rest is read and discarded.
      const chunk = `${(65_536).toString(16)}\r\n${'x'.repeat(65_536)}\r\n`;
      const sent = client.write(`${chunk.repeat(16)}0\r\n\r\n`);
      const tooLarge = await client.answer();
      expect(tooLarge.status).toBe(413);
      expect(JSON.parse(tooLarge.body)).toEqual({ statusCode: 413, message: 'body exceeds 4096 bytes' });
      expect(tooLarge.headers.connection).not.toBe('close');

      const text = JSON.stringify(delivery());
      await client.write(
        deliveryHead(PATH, serviceToken, `Content-Length: ${Buffer.byteLength(text)}`) + text,
      );
      const taken = await client.answer();
      expect(taken.status).toBe(200);
      const { id } = JSON.parse(taken.body) as { id: string };
      expect(await inbox().findOneBy({ id })).not.toBeNull();
      await sent;
      expect(client.isClosed()).toBe(false);
      expect(await inbox().count()).toBe(before + 1);
    } finally {
      client.destroy();
    }
  });
});
