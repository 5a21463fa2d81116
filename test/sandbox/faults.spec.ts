import type { WireErrorBody } from '../../src/sandbox/wire.types';
import type { WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

describe('sandbox: fault injection (/_sandbox/faults)', () => {
  let sandbox: SandboxServer;
  beforeEach(async () => {
    sandbox = await startSandbox();
  });
  afterEach(() => sandbox.close());

  const addFault = (rule: unknown) =>
    call<{ fault: { id: string } } & WireErrorBody>(sandbox.url, 'POST', '/_sandbox/faults', rule, null);
  const list = () => call<WireInvoiceListResponse & WireErrorBody>(sandbox.url, 'GET', '/invoices');
  const total = async () => (await list()).body.pagination.total;

  it('fails the next N requests with the chosen status, then recovers', async () => {
    expect((await addFault({ status: 503, times: 2 })).status).toBe(200);
    const first = await list();
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, error: true, code: 'unavailable' });
    expect((await list()).status).toBe(503);
    expect((await list()).status).toBe(200);
  });

  it('scopes a fault to a method and path, and nothing is stored when it fires', async () => {
    await addFault({ method: 'POST', path: '/invoices', status: 500, times: 1 });
    expect((await list()).status).toBe(200);
    const failed = await call(sandbox.url, 'POST', '/invoices', createBody());
    expect(failed.status).toBe(500);
    expect(await total()).toBe(0);
    expect((await call(sandbox.url, 'POST', '/invoices', createBody())).status).toBe(200);
    expect(await total()).toBe(1);
  });

  it('can fail after processing: the client sees 500 but the invoice exists', async () => {
    await addFault({ method: 'POST', path: '/invoices', status: 500, afterProcessing: true, times: 1 });
    const res = await call(sandbox.url, 'POST', '/invoices', createBody());
    expect(res.status).toBe(500);
    expect(await total()).toBe(1);
  });

  it('rate-limits with 429 and Retry-After', async () => {
    await addFault({ path: '/invoices', rateLimit: { limit: 2, windowMs: 60000 } });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const limited = await list();
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    sandbox.controls.clearFaults();
    sandbox.controls.addFault({ status: 429, retryAfterSeconds: 7, times: 1 });
    expect((await list()).headers.get('retry-after')).toBe('7');
  });

  it('draws error rates from a seed, so the same seed fails the same requests', async () => {
    const run = async (): Promise<number[]> => {
      await call(sandbox.url, 'DELETE', '/_sandbox/faults', undefined, null);
      await addFault({ status: 500, errorRate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await list()).status);
      return statuses;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    expect(a).toContain(500);
    expect(a).toContain(200);
  });

  it('adds latency, then answers normally', async () => {
    sandbox.controls.addFault({ path: '/invoices', latencyMs: 20, times: 1 });
    const res = await list();
    expect(res.status).toBe(200);
    expect(sandbox.controls.faults()).toEqual([]);
  });

  it('adds latency: a client with a short timeout gives up', async () => {
    sandbox.controls.addFault({ latencyMs: 30000, times: 1 });
    await expect(fetch(`${sandbox.url}/invoices`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect((await list()).status).toBe(200);
  });

  it('hangs a request without ever answering', async () => {
    sandbox.controls.addFault({ path: '/invoices', hang: true, times: 1 });
    await expect(fetch(`${sandbox.url}/invoices`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect((await list()).status).toBe(200);
  });

  it('drops the connection (a network error for the client)', async () => {
    sandbox.controls.addFault({ dropConnection: true, times: 1 });
    await expect(fetch(`${sandbox.url}/invoices`)).rejects.toThrow();
    expect((await list()).status).toBe(200);
  });

  it('never applies to /_sandbox itself', async () => {
    await addFault({ status: 500 });
    const token = await call(
      sandbox.url,
      'POST',
      '/_sandbox/card-tokens',
      { number: '4111111111111111', holder: 'A', expiry: '12/30' },
      null,
    );
    expect(token.status).toBe(200);
    expect((await list()).status).toBe(500);
  });

  it('lists and clears faults, and validates rules naming the field', async () => {
    await addFault({ status: 502, times: 3 });
    const listed = await call<{ faults: Array<{ status: number; remaining: number }> }>(
      sandbox.url,
      'GET',
      '/_sandbox/faults',
      undefined,
      null,
    );
    expect(listed.body.faults).toEqual([expect.objectContaining({ status: 502, remaining: 3 })]);
    await call(sandbox.url, 'DELETE', '/_sandbox/faults', undefined, null);
    expect(sandbox.controls.faults()).toEqual([]);
    expect((await list()).status).toBe(200);
    for (const [rule, field] of [
      [{ status: 200 }, 'status'],
      [{ status: 500, errorRate: 2 }, 'errorRate'],
      [{ times: 1 }, 'body'],
      [{ status: 500, path: 'invoices' }, 'path'],
    ] as const) {
      const res = await addFault(rule);
      expect(res.status).toBe(422);
      expect(res.body.errors).toHaveProperty([field]);
    }
  });
});
