import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import request from 'supertest';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  sandboxDeliveryParts,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  WebhookApp,
} from './support';

/** A host's global guard: records what it was asked about, and lets through only what `allow` says. */
class RecordingGuard implements CanActivate {
  readonly seen: string[] = [];
  constructor(private readonly allow: boolean) {}
  canActivate(context: ExecutionContext): boolean {
    this.seen.push(context.switchToHttp().getRequest<{ url: string }>().url);
    return this.allow;
  }
}

/**
 * A host middleware that reads every request body before anything else (registered ahead of Nest's parsers): the
 * webhook route ahead of the parsers then finds the body read and leaves the delivery to the Nest route.
 */
function readsBodiesFirst(req: IncomingMessage & { body?: unknown }, _res: unknown, next: () => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    req.body = Buffer.concat(chunks);
    (req as { _body?: boolean })._body = true; // body-parser's own "already parsed" mark
    next();
  });
}

/**
 * On Express the webhook route is a middleware ahead of Nest's router: a delivery is stored and answered there, so a
 * host's global guard never sees it. Where that route does not take it (here: a host middleware read the body
 * first; on other platforms always), the Nest route takes it through the same intake and the host's guard decides.
 * Both ways give the same answers for the same deliveries.
 */
describeEachDatabase('webhooks: the answer from the body reader', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let early: WebhookApp;
  let routed: WebhookApp;
  const earlyGuard = new RecordingGuard(false);
  const routedGuard = new RecordingGuard(true);
  let invoice: WireInvoiceCurrent;
  let serviceToken: string;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
    early = await startWebhookApp(db, sandbox, {}, (app) => app.useGlobalGuards(earlyGuard));
    routed = await startWebhookApp(db, sandbox, {}, (app) => {
      app.use(readsBodiesFirst);
      app.useGlobalGuards(routedGuard);
    });
    ({ invoice, serviceToken } = await sandboxDeliveryParts(early.gateway, sandbox, db.dataSource));
  });
  afterAll(async () => {
    await early?.close();
    await routed?.close();
    await sandbox.close();
    await db.destroy();
  });

  const body = () => ({
    event: 'invoice.update',
    delivery_id: randomUUID(),
    webhook: 'default',
    sent_at: '2026-11-21 10:00:00',
    invoice,
  });
  const post = (app: WebhookApp, payload: unknown, service = serviceToken) =>
    postDelivery(app.url, '/webhooks/invoice-payments', payload, ['default', tokenLine('', service)]);

  it('stores and answers a delivery by default without the host guard, which denies everything', async () => {
    const delivery = body();
    const res = await post(early, delivery);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toEqual({ received: true, id: expect.any(String), duplicate: false, state: 'pending' });
    const stored = await db.dataSource.getRepository(WebhookInboxEntry).findOneByOrFail({ id: res.body.id });
    expect(stored.dedupeKey).toBe(`delivery:${delivery.delivery_id}`);
    expect(earlyGuard.seen).toEqual([]);
  });

  it("leaves other methods to the host: a GET of the path gets Nest's own 404", async () => {
    const res = await request(early.url).get('/webhooks/invoice-payments');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, message: 'Cannot GET /webhooks/invoice-payments' });
  });

  it('when a host middleware read the body first, goes through the Nest route and the host guard', async () => {
    const res = await post(routed, body());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, id: expect.any(String), duplicate: false, state: 'pending' });
    expect(routedGuard.seen).toEqual(['/webhooks/invoice-payments']);
  });

  it('answers the same refusals both ways: status, body and headers', async () => {
    const cases: Array<[string, (app: WebhookApp) => ReturnType<typeof post>]> = [
      ['no token line', (app) => postDelivery(app.url, '/webhooks/invoice-payments', body(), ['default'])],
      ['malformed JSON', (app) => post(app, '{"event":')],
      ['not an object', (app) => post(app, '[1,2]')],
      ['no invoice id', (app) => post(app, { ...body(), invoice: { ...invoice, id: undefined } })],
    ];
    for (const [what, send] of cases) {
      const a = await send(early);
      const b = await send(routed);
      expect({ what, status: a.status, body: a.body }).toEqual({ what, status: b.status, body: b.body });
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect(a.status).toBeLessThan(500);
      expect(a.body).toEqual({
        statusCode: a.status,
        message: expect.any(String),
        error: expect.any(String),
      });
      for (const res of [a, b]) {
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    }
  });

  it('answers the same acknowledgement both ways for an invoice this store does not hold', async () => {
    const stray = () => ({ ...body(), invoice: { ...invoice, id: 'not-ours', referrer: 'not-ours' } });
    const [a, b] = [await post(early, stray()), await post(routed, stray())];
    for (const res of [a, b]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, ignored: 'no_open_invoice', message: expect.any(String) });
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(a.body).toEqual(b.body);
  });
});
