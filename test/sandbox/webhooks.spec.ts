import type { WireErrorBody, WireResendWebhookResponse } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../support/wait-for';
import { call, createBody, startReceiver } from './helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The values of every header line named `name` (case-insensitive), from rawHeaders. */
function lines(rawHeaders: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i].toLowerCase() === name.toLowerCase()) out.push(rawHeaders[i + 1]);
  return out;
}

describe('sandbox: webhooks (§4.7, §4.8, §6, A13, A14)', () => {
  let sandbox: SandboxServer;
  beforeEach(async () => {
    sandbox = await startSandbox({
      accountId: 'acct-42',
      gatewayName: 'TestGateway',
      webhookRetry: { attempts: 3, baseDelayMs: 5, factor: 2 },
    });
  });
  afterEach(() => sandbox.close());

  const create = async (webhook?: string) =>
    (
      await call<WireInvoiceCurrentResponse>(
        sandbox.url,
        'POST',
        '/invoices',
        createBody({ payment: webhook ? { webhook } : {} }),
      )
    ).body.invoice;
  const validate = (token: unknown, bearer: string | null = null) =>
    call<WireErrorBody & { success: boolean }>(sandbox.url, 'OPTIONS', '/webhooks', { token }, bearer);

  it('sends two separate Webhook header lines, UserId, Gateway and JSON, and the token validates', async () => {
    const receiver = await startReceiver();
    try {
      const inv = await create(receiver.url);
      await sandbox.controls.waitForDeliveries();
      expect(receiver.received).toHaveLength(1);
      const { rawHeaders, headers, body } = receiver.received[0];
      const webhookLines = lines(rawHeaders, 'Webhook');
      expect(webhookLines).toHaveLength(2);
      expect(webhookLines).toContain('default');
      const tokenLine = webhookLines.find((v) => Buffer.from(v, 'base64').toString().includes(':')) as string;
      const [merchant, service] = Buffer.from(tokenLine, 'base64').toString().split(':');
      expect(merchant).toBe('');
      expect(service).toMatch(/^[0-9a-f]{48}$/);
      expect(headers['content-type']).toBe('application/json');
      expect(lines(rawHeaders, 'UserId')).toEqual(['acct-42']);
      expect(lines(rawHeaders, 'Gateway')).toEqual(['TestGateway']);
      expect(body).toMatchObject({
        event: 'invoice.created',
        webhook: 'default',
        invoice: { id: inv.id, status: { code: 1 } },
      });
      expect(body.delivery_id).toMatch(UUID);
      expect(body.sent_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

      const ok = await validate(service);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ success: true });
      expect((await validate(service, 'sandbox-token')).status).toBe(200);
      const bad = await validate('f'.repeat(48));
      expect(bad.status).toBe(404);
      expect(bad.body.code).toBe('not_found');
      expect((await validate(undefined)).status).toBe(422);
      const notJson = await call(sandbox.url, 'OPTIONS', '/webhooks', 'token=abc', null);
      expect(notJson.status).toBe(400);
    } finally {
      await receiver.close();
    }
  });

  it('delivers to every registered webhook when the invoice names none, with the merchant token', async () => {
    const a = await startReceiver();
    const b = await startReceiver();
    try {
      const hookA = sandbox.controls.registerWebhook({ url: a.url, merchant_token: 'merchant-secret' });
      const hookB = sandbox.controls.registerWebhook({ url: b.url });
      await create();
      await sandbox.controls.waitForDeliveries();
      expect(a.received).toHaveLength(1);
      expect(b.received).toHaveLength(1);
      const tokenA = lines(a.received[0].rawHeaders, 'Webhook').find((v) => v !== hookA.id) as string;
      expect(Buffer.from(tokenA, 'base64').toString()).toBe(`merchant-secret:${hookA.token}`);
      expect(lines(b.received[0].rawHeaders, 'Webhook')).toContain(hookB.id);
      expect((await validate(hookA.token)).status).toBe(200);
      // A URL given at creation takes the invoice's events instead of the registered ones.
      const own = await startReceiver();
      await create(own.url);
      await sandbox.controls.waitForDeliveries();
      expect(own.received).toHaveLength(1);
      expect(a.received).toHaveLength(1);
      await own.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('registers webhooks over HTTP too, and refuses a URL that is not one', async () => {
    const res = await call<{ id: string; token: string }>(
      sandbox.url,
      'POST',
      '/_sandbox/webhooks',
      { url: 'http://127.0.0.1:1/x' },
      null,
    );
    expect(res.body.id).toMatch(/^wh_/);
    const bad = await call<WireErrorBody>(sandbox.url, 'POST', '/_sandbox/webhooks', { url: 'nope' }, null);
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty(['url']);
  });

  it('retries a failed delivery with backoff and the same delivery_id (500, 500, then 200)', async () => {
    const receiver = await startReceiver((n) => (n < 2 ? 500 : 200));
    try {
      await create(receiver.url);
      await sandbox.controls.waitForDeliveries();
      expect(receiver.received).toHaveLength(3);
      const ids = new Set(receiver.received.map((r) => r.body.delivery_id));
      expect(ids.size).toBe(1);
      expect(receiver.received.map((r) => JSON.stringify(r.body))).toEqual(
        Array(3).fill(JSON.stringify(receiver.received[0].body)),
      );
      const [entry] = sandbox.deliveries();
      expect(entry.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
      expect(entry.state).toBe('delivered');
      expect(entry.deliveryId).toBe([...ids][0]);
    } finally {
      await receiver.close();
    }
  });

  it('gives up after the configured attempts, and logs network errors', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      await create(receiver.url);
      await create('http://127.0.0.1:1/unreachable');
      await sandbox.controls.waitForDeliveries();
      const [toReceiver, toNowhere] = sandbox.deliveries();
      expect(toReceiver.attempts.map((a) => a.status)).toEqual([503, 503, 503]);
      expect(toReceiver.state).toBe('failed');
      expect(toNowhere.attempts).toHaveLength(3);
      expect(toNowhere.attempts.every((a) => a.status === null && typeof a.error === 'string')).toBe(true);
      expect(toNowhere.state).toBe('failed');
    } finally {
      await receiver.close();
    }
  });

  it('delivers an event per status change, in order: created, then each update, then tracking', async () => {
    const receiver = await startReceiver();
    try {
      const inv = await create(receiver.url);
      await sandbox.controls.pay(inv.id);
      await call(sandbox.url, 'POST', '/invoices/tracking', {
        payment: { invoice_id: inv.invoice_id },
        tracking: { code: 'BR1' },
      });
      await sandbox.controls.waitForDeliveries();
      expect(receiver.received.map((r) => [r.body.event, r.body.invoice?.status.code])).toEqual([
        ['invoice.created', 1],
        ['invoice.update', 5],
        ['invoice.tracking', 5],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('exposes the delivery log over HTTP as well', async () => {
    const receiver = await startReceiver();
    try {
      await create(receiver.url);
      const waited = await call<{ deliveries: unknown[] }>(
        sandbox.url,
        'POST',
        '/_sandbox/deliveries/wait',
        {},
        null,
      );
      expect(waited.body.deliveries).toHaveLength(1);
      const res = await call<{
        deliveries: Array<{ headers: Record<string, unknown>; attempts: unknown[] }>;
      }>(sandbox.url, 'GET', '/_sandbox/deliveries', undefined, null);
      expect(res.body.deliveries).toEqual(sandbox.deliveries());
      expect(res.body.deliveries[0].headers.Webhook).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  it('stops retrying once closed, even when an attempt was in flight', async () => {
    let release: () => void = () => undefined;
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      // Hold the first answer until the sandbox is closed, then fail it.
      release = () => res.writeHead(500).end();
      if (requests > 1) release();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const closing = await startSandbox({ webhookRetry: { attempts: 5, baseDelayMs: 10 } });
    try {
      await call(closing.url, 'POST', '/invoices', createBody({ payment: { webhook: url } }));
      await waitFor(() => requests === 1, 5_000, 'the first attempt');
      await closing.close();
      release();
      // The sandbox decides on a retry in the turn it records an attempt (a closed sandbox's timers refuse the wait
      // at once), so once the 500 is recorded a retry has had its chance.
      await waitFor(
        () => closing.deliveries()[0]?.attempts.length === 1,
        5_000,
        'the first attempt recorded',
      );
      expect(requests).toBe(1);
      expect(closing.deliveries()[0].attempts.map((a) => a.status)).toEqual([500]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  describe('resend (COPY /webhooks)', () => {
    it('resends the latest delivery of an event to a URL and answers the sent body', async () => {
      const first = await startReceiver();
      const second = await startReceiver();
      try {
        const inv = await create(first.url);
        await sandbox.controls.pay(inv.id);
        await sandbox.controls.waitForDeliveries();
        const res = await call<WireResendWebhookResponse>(
          sandbox.url,
          'COPY',
          '/webhooks',
          { url: second.url, events: 'invoice.update', webhook: 'default' },
          'sandbox-token',
        );
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        expect(res.body.sent).toMatchObject({ event: 'invoice.update', total: 1 });
        const [r] = res.body.sent.responses;
        expect(r).toMatchObject({
          events: 'invoice.update',
          webhook: 'default',
          version: expect.stringMatching(/^3\./),
        });
        expect(r.update).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        expect(r.response.details).toMatchObject({
          http: 200,
          raw_response: false,
          json_response: { ok: true },
        });
        expect(r.response.details.headers).toContain('X-Receiver: test');
        expect(second.received).toHaveLength(1);
        expect(second.received[0].body.delivery_id).toBe(first.received[1].body.delivery_id);
        expect(lines(second.received[0].rawHeaders, 'Webhook')).toHaveLength(2);
      } finally {
        await first.close();
        await second.close();
      }
    });

    it('sends a synthetic test delivery when there was none, without a bearer token', async () => {
      const receiver = await startReceiver();
      try {
        const res = await call<WireResendWebhookResponse>(
          sandbox.url,
          'COPY',
          '/webhooks',
          { url: receiver.url, events: 'invoice.update', webhook: 'default' },
          null,
        );
        expect(res.status).toBe(200);
        expect(receiver.received[0].body).toMatchObject({
          event: 'invoice.update',
          test: true,
          invoice: null,
        });
      } finally {
        await receiver.close();
      }
    });

    it('answers 404 for an unknown webhook and 422 naming missing fields', async () => {
      const unknown = await call<WireErrorBody>(
        sandbox.url,
        'COPY',
        '/webhooks',
        { url: 'http://127.0.0.1:1/', events: 'x', webhook: 'wh_9' },
        null,
      );
      expect(unknown.status).toBe(404);
      const missing = await call<WireErrorBody>(sandbox.url, 'COPY', '/webhooks', { events: 'x' }, null);
      expect(missing.status).toBe(422);
      expect(Object.keys(missing.body.errors ?? {})).toEqual(expect.arrayContaining(['url', 'webhook']));
    });
  });

  describe('webhook faults', () => {
    it('drops the next N deliveries', async () => {
      const receiver = await startReceiver();
      try {
        const set = await call<{ webhooks: { drop: number } }>(
          sandbox.url,
          'POST',
          '/_sandbox/faults',
          { webhooks: { drop: 1 } },
          null,
        );
        expect(set.body.webhooks.drop).toBe(1);
        expect(sandbox.controls.faults()).toEqual([]);
        const a = await create(receiver.url);
        const b = await create(receiver.url);
        await sandbox.controls.waitForDeliveries();
        expect(receiver.received.map((r) => r.body.invoice?.id)).toEqual([b.id]);
        expect(sandbox.deliveries().map((d) => [d.invoiceId, d.state])).toEqual([
          [a.id, 'dropped'],
          [b.id, 'delivered'],
        ]);
      } finally {
        await receiver.close();
      }
    });

    it('duplicates the next N deliveries with the same delivery_id', async () => {
      const receiver = await startReceiver();
      try {
        await call(sandbox.url, 'POST', '/_sandbox/faults/webhooks', { duplicate: 1 }, null);
        await create(receiver.url);
        await sandbox.controls.waitForDeliveries();
        expect(receiver.received).toHaveLength(2);
        expect(receiver.received[0].body.delivery_id).toBe(receiver.received[1].body.delivery_id);
        expect(sandbox.deliveries().map((d) => d.duplicate)).toEqual([false, true]);
      } finally {
        await receiver.close();
      }
    });

    it('reorders: holds the next N and sends them in reverse', async () => {
      const receiver = await startReceiver();
      try {
        sandbox.controls.setWebhookFaults({ reorder: 3 });
        const ids = [
          (await create(receiver.url)).id,
          (await create(receiver.url)).id,
          (await create(receiver.url)).id,
        ];
        await sandbox.controls.waitForDeliveries();
        expect(receiver.received.map((r) => r.body.invoice?.id)).toEqual([...ids].reverse());
      } finally {
        await receiver.close();
      }
    });

    it('holds every delivery until released, in the order asked', async () => {
      const receiver = await startReceiver();
      try {
        sandbox.controls.setWebhookFaults({ hold: true });
        const a = await create(receiver.url);
        const b = await create(receiver.url);
        await sandbox.controls.waitForDeliveries();
        expect(receiver.received).toHaveLength(0);
        expect(sandbox.deliveries().map((d) => d.state)).toEqual(['held', 'held']);
        sandbox.controls.setWebhookFaults({});
        const released = await call<{ released: number }>(
          sandbox.url,
          'POST',
          '/_sandbox/webhooks/release',
          { order: 'reverse' },
          null,
        );
        expect(released.body.released).toBe(2);
        await sandbox.controls.waitForDeliveries();
        expect(receiver.received.map((r) => r.body.invoice?.id)).toEqual([b.id, a.id]);
      } finally {
        await receiver.close();
      }
    });
  });
});
