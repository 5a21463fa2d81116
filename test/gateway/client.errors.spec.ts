import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GatewayAuthenticationError,
  GatewayNetworkError,
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayRateLimitError,
  GatewayResponseError,
  GatewayScopeError,
  GatewayStateConflictError,
  GatewayTimeoutError,
  GatewayUnavailableError,
  GatewayValidationError,
} from '../../src/gateway/errors';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { GatewayCallObserver } from '../../src/gateway/gateway.options';
import { validCreateParams } from './fixtures';
import { Harness, READ_ONLY_TOKEN, startHarness, TOKEN } from './support/harness';
import { RecordingProxy } from './support/recording-proxy';
import { ManualClock, ShiftedClock } from '../support/clock';

/** Runs `call`, which must fail, and returns the error. */
async function failure(call: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await call;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to fail');
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('GatewayClient errors and retries (sandbox over HTTP)', () => {
  let h: Harness;
  let client: GatewayClient;

  beforeAll(async () => {
    h = await startHarness({ autoProcessCards: false });
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.reset();
    client = h.client();
  });

  const count = (method: string, path: string) =>
    h.proxy.apiRequests().filter((r) => r.method === method && r.path === path).length;

  describe('HTTP status → error class', () => {
    it('401 → GatewayAuthenticationError', async () => {
      const err = await failure(h.client({ accessToken: 'not-a-known-token' }).listInvoices());
      expect(err).toBeInstanceOf(GatewayAuthenticationError);
      expect(err).toMatchObject({
        kind: 'authentication',
        httpStatus: 401,
        serviceCode: 'unauthorized',
        sent: true,
      });
      expect(err.message).toMatch(/^listInvoices\(\): access token missing, unknown or expired/);
      expect(count('GET', '/invoices')).toBe(1);
    });

    it('403 → GatewayScopeError naming the scope and the invoice', async () => {
      const err = await failure(
        h.client({ accessToken: READ_ONLY_TOKEN }).createInvoice(validCreateParams()),
      );
      expect(err).toBeInstanceOf(GatewayScopeError);
      expect(err).toMatchObject({
        kind: 'scope',
        scope: 'invoice.write',
        httpStatus: 403,
        invoiceRef: 'referrer=order-1-a1',
      });
      expect(err.message).toMatch(
        /^createInvoice\(referrer=order-1-a1\): the token lacks scope invoice\.write/,
      );
    });

    it('422 → GatewayValidationError with the service’s field messages', async () => {
      const inv = await client.createInvoice(validCreateParams());
      await h.sandbox.controls.pay(inv.id);
      const err = await failure(
        client.refundInvoice({
          id: inv.id,
          invoiceId: inv.invoiceId,
          amountCents: inv.amounts.grossCents! + 1,
        }),
      );
      expect(err).toBeInstanceOf(GatewayValidationError);
      expect(err).toMatchObject({
        kind: 'validation',
        httpStatus: 422,
        sent: true,
        serviceCode: 'validation_error',
      });
      const fields = (err as unknown as GatewayValidationError).fields;
      expect(Object.keys(fields)).toEqual(['payment.amount']);
      expect(fields['payment.amount'][0]).toMatch(/refundable/);
      expect(err.message).toContain(`refundInvoice(id=${inv.id}): invalid payment.amount`);
    });

    it('404 → GatewayNotFoundError', async () => {
      const err = await failure(client.cancelInvoice({ id: 'no-such-invoice' }));
      expect(err).toBeInstanceOf(GatewayNotFoundError);
      expect(err.message).toMatch(/^cancelInvoice\(id=no-such-invoice\): not found/);
    });

    it('409 → GatewayStateConflictError with the current status code', async () => {
      const inv = await client.createInvoice(validCreateParams());
      await client.cancelInvoice({ id: inv.id });
      const err = await failure(client.cancelInvoice({ id: inv.id }));
      expect(err).toBeInstanceOf(GatewayStateConflictError);
      expect(err).toMatchObject({ kind: 'state_conflict', statusCode: 6, httpStatus: 409 });
      expect(err.message).toMatch(
        new RegExp(`^cancelInvoice\\(id=${inv.id}\\): state conflict \\(invoice status 6\\)`),
      );
      expect(count('DELETE', '/invoices')).toBe(2);
    });

    it('200 with success:false → GatewayResponseError (not retried)', async () => {
      h.proxy.addRule({
        match: (r) => r.path === '/auth/status',
        action: {
          kind: 'rewrite',
          answer: () => ({
            status: 200,
            body: JSON.stringify({ success: false, error: true, message: 'refused' }),
          }),
        },
      });
      const err = await failure(client.credentialStatus());
      expect(err).toBeInstanceOf(GatewayResponseError);
      expect(err.message).toBe('credentialStatus(): the service reported a failure: refused');
      expect(count('GET', '/auth/status')).toBe(1);
    });

    it('an unreadable body → GatewayResponseError; an unreadable invoice names the list entry', async () => {
      h.proxy.addRule({
        match: (r) => r.path === '/invoices',
        action: { kind: 'rewrite', answer: () => ({ status: 200, body: '<html>oops</html>' }) },
        times: 1,
      });
      const err = await failure(client.listInvoices());
      expect(err).toBeInstanceOf(GatewayResponseError);
      expect(err.message).toMatch(/unreadable response body/);

      await client.createInvoice(validCreateParams());
      h.proxy.addRule({
        match: (r) => r.path === '/invoices' && r.method === 'GET',
        action: {
          kind: 'rewrite',
          answer: (status, body) => {
            const json = JSON.parse(body) as { invoices: Array<Record<string, unknown>> };
            delete json.invoices[0].status;
            return { status, body: JSON.stringify(json) };
          },
        },
      });
      const bad = await failure(client.listInvoices());
      expect(bad).toBeInstanceOf(GatewayResponseError);
      expect(bad.message).toMatch(/^listInvoices\(\): unreadable invoices\[0\]: unreadable status/);
    });
  });

  describe('retries', () => {
    it('429 on a read: waits Retry-After, then succeeds', async () => {
      h.sandbox.controls.addFault({
        method: 'GET',
        path: '/invoices',
        status: 429,
        retryAfterSeconds: 1,
        times: 1,
      });
      const page = await client.listInvoices();
      expect(page.items).toEqual([]);
      expect(count('GET', '/invoices')).toBe(2);
      const warn = h.logger.lines.filter((l) => l.level === 'warn').map((l) => l.text);
      expect(warn).toEqual([
        expect.stringMatching(/^listInvoices: attempt 1 failed \(.*rate limited.*\); retrying in 1000 ms$/),
      ]);
    });

    it('429 with a Retry-After above the cap: no retry, GatewayRateLimitError carries the wait', async () => {
      h.sandbox.controls.addFault({
        method: 'GET',
        path: '/invoices',
        status: 429,
        retryAfterSeconds: 30,
        times: 1,
      });
      const err = await failure(h.client({ retry: { maxRetryAfterMs: 5_000 } }).listInvoices());
      expect(err).toBeInstanceOf(GatewayRateLimitError);
      expect(err).toMatchObject({ kind: 'rate_limit', retryAfterMs: 30_000 });
      expect(count('GET', '/invoices')).toBe(1);
    });

    it('429 on creation is not retried', async () => {
      h.sandbox.controls.addFault({ method: 'POST', path: '/invoices', status: 429, times: 1 });
      const err = await failure(client.createInvoice(validCreateParams()));
      expect(err).toBeInstanceOf(GatewayRateLimitError);
      expect(count('POST', '/invoices')).toBe(1);
    });

    it('5xx on a read is retried with backoff until it succeeds', async () => {
      h.sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 2 });
      await expect(client.listInvoices()).resolves.toMatchObject({ items: [] });
      expect(count('GET', '/invoices')).toBe(3);
    });

    it('5xx on a read past maxAttempts → GatewayUnavailableError', async () => {
      h.sandbox.controls.addFault({ method: 'GET', path: '/consumers', status: 502 });
      const err = await failure(
        h.client({ retry: { maxAttempts: 4, initialDelayMs: 1, maxDelayMs: 2 } }).listConsumers(),
      );
      expect(err).toBeInstanceOf(GatewayUnavailableError);
      expect(err).toMatchObject({ httpStatus: 502, sent: true });
      expect(count('GET', '/consumers')).toBe(4);
    });

    it('5xx on creation is not retried: outcome unknown, resolved by referrer either way', async () => {
      h.sandbox.controls.addFault({
        method: 'POST',
        path: '/invoices',
        status: 500,
        times: 1,
        afterProcessing: true,
      });
      const err = await failure(client.createInvoice(validCreateParams()));
      expect(err).toBeInstanceOf(GatewayOutcomeUnknownError);
      expect(err).toMatchObject({ reason: 'server_error', referrer: 'order-1-a1', httpStatus: 500 });
      expect(count('POST', '/invoices')).toBe(1);
      expect((await client.findInvoiceByReferrer('order-1-a1'))?.status.code).toBe(1);

      h.sandbox.controls.addFault({ method: 'POST', path: '/invoices', status: 500, times: 1 });
      const params = validCreateParams();
      params.payment.referrer = 'never-stored';
      await expect(client.createInvoice(params)).rejects.toBeInstanceOf(GatewayOutcomeUnknownError);
      expect(await client.findInvoiceByReferrer('never-stored')).toBeNull();
    });

    it('5xx on a non-idempotent write is not retried: its outcome is unknown (it may have been carried out)', async () => {
      const inv = await client.createInvoice(validCreateParams());
      h.sandbox.controls.addFault({ method: 'DELETE', path: '/invoices', status: 503, times: 1 });
      await expect(client.cancelInvoice({ id: inv.id })).rejects.toMatchObject({
        kind: 'outcome_unknown',
        reason: 'server_error',
        operation: 'cancelInvoice',
      });
      expect(count('DELETE', '/invoices')).toBe(1);
    });

    it('webhook token validation is retried like a read', async () => {
      h.sandbox.controls.addFault({ method: 'OPTIONS', path: '/webhooks', status: 503, times: 1 });
      await expect(client.validateWebhookToken('whatever')).resolves.toBe(false);
      expect(count('OPTIONS', '/webhooks')).toBe(2);
    });

    it('a dropped connection on a read is retried', async () => {
      h.sandbox.controls.addFault({ method: 'GET', path: '/auth/status', dropConnection: true, times: 1 });
      await expect(client.credentialStatus()).resolves.toMatchObject({ active: true });
      expect(count('GET', '/auth/status')).toBe(2);
    });
  });

  describe('timeouts and lost answers', () => {
    it('latency past the read timeout → GatewayTimeoutError after the retries', async () => {
      h.sandbox.controls.addFault({ method: 'GET', path: '/invoices', latencyMs: 1_000 });
      const err = await failure(h.client({ timeouts: { readMs: 100 } }).listInvoices());
      expect(err).toBeInstanceOf(GatewayTimeoutError);
      expect(err).toMatchObject({ kind: 'timeout', timeoutMs: 100, sent: true });
      expect(err.message).toBe('listInvoices(): no answer within 100 ms');
      expect(count('GET', '/invoices')).toBe(3);
    });

    it('latency past the timeout of a write → outcome unknown (not "failed"), sent once', async () => {
      const inv = await client.createInvoice(validCreateParams());
      h.sandbox.controls.addFault({ method: 'DELETE', path: '/invoices', latencyMs: 1_000 });
      const err = await failure(h.client({ timeouts: { defaultMs: 100 } }).cancelInvoice({ id: inv.id }));
      expect(err).toBeInstanceOf(GatewayOutcomeUnknownError);
      expect(err).toMatchObject({ reason: 'timeout', sent: true });
      expect(count('DELETE', '/invoices')).toBe(1);
    });

    it("a write's first attempt has its whole timeout, however long the way to it took", async () => {
      h.proxy.addRule({
        match: (r) => r.method === 'POST' && r.path === '/invoices',
        action: { kind: 'hold' },
        times: 1,
      });
      const clock = new ManualClock();
      // Time passes between the call and its first attempt (a busy machine): the observer wraps that stretch.
      const observer: GatewayCallObserver = {
        observe: (_call, work) => {
          clock.advance(100);
          return work();
        },
      };
      const options = {
        baseUrl: h.proxy.url,
        accessToken: TOKEN,
        mode: 'sandbox' as const,
        logger: h.logger,
      };
      const slow = new GatewayClient({ ...options, timeouts: { createMs: 300 } }, undefined, observer, clock);
      const err = await failure(slow.createInvoice(validCreateParams()));
      expect(err).toBeInstanceOf(GatewayOutcomeUnknownError);
      expect(err.message).toMatch(/^createInvoice\(referrer=order-1-a1\): no answer within 300 ms/);
      await h.proxy.settled();
    });

    it('creation timing out after the service stored it → outcome unknown, then findInvoiceByReferrer finds it', async () => {
      h.proxy.addRule({
        match: (r) => r.method === 'POST' && r.path === '/invoices',
        action: { kind: 'hold' },
        times: 1,
      });
      const err = await failure(h.client({ timeouts: { createMs: 300 } }).createInvoice(validCreateParams()));
      expect(err).toBeInstanceOf(GatewayOutcomeUnknownError);
      expect(err).toMatchObject({
        kind: 'outcome_unknown',
        reason: 'timeout',
        referrer: 'order-1-a1',
        sent: true,
      });
      expect(err.message).toMatch(/^createInvoice\(referrer=order-1-a1\): no answer within 300 ms/);
      expect(count('POST', '/invoices')).toBe(1);
      await h.proxy.settled();
      const found = await client.findInvoiceByReferrer('order-1-a1');
      expect(found?.referrer).toBe('order-1-a1');
      expect(found?.status.code).toBe(1);
      expect(count('POST', '/invoices')).toBe(1);
    });

    it('creation whose connection drops after sending → outcome unknown (connection), never retried', async () => {
      h.proxy.addRule({
        match: (r) => r.method === 'POST' && r.path === '/invoices',
        action: { kind: 'drop' },
        times: 1,
      });
      const err = await failure(client.createInvoice(validCreateParams()));
      expect(err).toBeInstanceOf(GatewayOutcomeUnknownError);
      expect(err).toMatchObject({ reason: 'connection', sent: true });
      expect(count('POST', '/invoices')).toBe(1);
      await h.proxy.settled();
      expect(await client.findInvoiceByReferrer('order-1-a1')).not.toBeNull();
    });
  });

  describe('requests that never left', () => {
    it('connection refused is retried, creation included, and succeeds once the service is up', async () => {
      const port = await freePort();
      // The service comes up when the client logs its first retry.
      let starting: Promise<RecordingProxy> | undefined;
      h.logger.onWarn = () => {
        starting ??= RecordingProxy.start(h.sandbox.url, port);
      };
      try {
        const c = h.client({
          baseUrl: `http://127.0.0.1:${port}`,
          retry: { maxAttempts: 5, initialDelayMs: 200, maxDelayMs: 400 },
        });
        const invoice = await c.createInvoice(validCreateParams());
        expect(invoice.referrer).toBe('order-1-a1');
        const warnings = h.logger.lines.filter((l) => l.level === 'warn');
        expect(warnings.length).toBeGreaterThanOrEqual(1);
        expect(warnings[0].text).toMatch(/^createInvoice: attempt 1 failed \(.*ECONNREFUSED.*\)/);
        const late = await starting!;
        expect(late.apiRequests().filter((r) => r.method === 'POST')).toHaveLength(1);
        expect(h.sandbox.controls.getInvoice(invoice.id)).toBeDefined();
      } finally {
        await (await starting)?.close();
      }
    });

    /**
     * A client whose first attempt is refused; while it backs off (its first retry logged), the service comes up and
     * the clock moves past the longest timeout, as after slow DNS failures.
     */
    async function lateService(): Promise<{ client: GatewayClient; late: () => Promise<RecordingProxy> }> {
      const port = await freePort();
      const clock = new ShiftedClock(Date.now());
      let starting: Promise<RecordingProxy> | undefined;
      h.logger.onWarn = () => {
        starting ??= RecordingProxy.start(h.sandbox.url, port);
        clock.advance(30_000);
      };
      closeLate = async () => (await starting)?.close();
      const retry = { maxAttempts: 5 };
      return {
        client: h.client({ baseUrl: `http://127.0.0.1:${port}`, retry }, undefined, clock),
        late: () => starting!,
      };
    }
    let closeLate: () => Promise<unknown> = async () => undefined;
    afterEach(async () => {
      await closeLate();
      closeLate = async () => undefined;
    });

    it("a write's retry never leaves after the call's timeout: the service that comes up late gets nothing", async () => {
      // A refund or creation reads the service's silence after that window as "not made", so a retry leaving now
      // could take money that is already counted as not taken.
      const { client: c, late } = await lateService();
      const err = await failure(c.createInvoice(validCreateParams()));
      expect(err).toBeInstanceOf(GatewayNetworkError);
      expect(err).toMatchObject({ kind: 'network', sent: false, networkCode: 'ECONNREFUSED' });
      expect(h.logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
      expect((await late()).apiRequests()).toHaveLength(0);
      expect(await client.findInvoiceByReferrer('order-1-a1')).toBeNull();
    });

    it('a read keeps its retries when an attempt runs past its timeout (a read cannot take money twice)', async () => {
      const { client: c, late } = await lateService();
      await expect(c.listInvoices()).resolves.toMatchObject({ items: [] });
      expect((await late()).apiRequests().filter((r) => r.method === 'GET')).toHaveLength(1);
    });

    it('connection refused every time → GatewayNetworkError with sent=false after maxAttempts', async () => {
      const port = await freePort();
      const err = await failure(h.client({ baseUrl: `http://127.0.0.1:${port}` }).cancelInvoice({ id: '1' }));
      expect(err).toBeInstanceOf(GatewayNetworkError);
      expect(err).toMatchObject({ kind: 'network', sent: false, networkCode: 'ECONNREFUSED' });
      expect(h.logger.lines.filter((l) => l.level === 'warn')).toHaveLength(2);
    });

    it('DNS failure → GatewayNetworkError with sent=false, not an unknown outcome', async () => {
      const err = await failure(
        h
          .client({ baseUrl: 'http://gateway.invalid', retry: { maxAttempts: 1 } })
          .createInvoice(validCreateParams()),
      );
      expect(err).toBeInstanceOf(GatewayNetworkError);
      expect(err.sent).toBe(false);
      expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(err.networkCode);
    });
  });
});
