import type { WireErrorBody } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse, WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

/** 15:30 UTC on 22 Nov: already 00:30 on the 23rd in Tokyo, still 12:30 on the 22nd in São Paulo. */
const AFTER_TOKYO_MIDNIGHT = new Date('2026-11-22T15:30:00Z');

/**
 * A2's time zone is the sandbox's `timeZone` option: a sandbox started in Tokyo stands in for a service that chose
 * differently, and counts today, due days, list filters and timestamps there.
 */
describe('sandbox: the time zone the service counts in (A2, `timeZone`)', () => {
  let tokyo: SandboxServer;
  let saoPaulo: SandboxServer;
  beforeAll(async () => {
    tokyo = await startSandbox({ clock: () => AFTER_TOKYO_MIDNIGHT, timeZone: 'Asia/Tokyo' });
    saoPaulo = await startSandbox({ clock: () => AFTER_TOKYO_MIDNIGHT });
  });
  afterAll(async () => {
    await tokyo?.close();
    await saoPaulo?.close();
  });

  const create = (sandbox: SandboxServer, dueAt?: string) =>
    call<WireErrorBody & WireInvoiceCurrentResponse>(
      sandbox.url,
      'POST',
      '/invoices',
      createBody({ payment: dueAt ? { due_at: dueAt } : {} }),
    );

  it("refuses a due day before its own today, which São Paulo's service still accepts", async () => {
    const refused = await create(tokyo, '2026-11-22');
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty(['payment.due_at']);
    expect(refused.body.message).toContain('2026-11-23');
    expect((await create(saoPaulo, '2026-11-22')).status).toBe(200);
  });

  it('writes its times and picks its default due day in its own zone', async () => {
    const created = await create(tokyo);
    expect(created.status).toBe(200);
    expect(created.body.date).toBe('2026-11-23 00:30:00');
    expect(created.body.invoice.created_at).toBe('2026-11-23 00:30:00');
    expect(created.body.invoice.due_at.day).toBe('2026-11-26 00:00:00');
  });

  it('filters `created_from` by its own days', async () => {
    const list = (from: string) =>
      call<WireInvoiceListResponse>(tokyo.url, 'GET', `/invoices?created_from=${from}`);
    expect((await list('2026-11-23')).body.pagination.total).toBeGreaterThan(0);
    expect((await list('2026-11-24')).body.pagination.total).toBe(0);
  });

  it('refuses to start in a zone that does not exist', async () => {
    await expect(startSandbox({ timeZone: 'America/Sao_Paul' })).rejects.toThrow(/timeZone/);
  });
});
