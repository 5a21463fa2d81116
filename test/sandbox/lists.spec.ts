import type { WireErrorBody } from '../../src/sandbox/wire.types';
import type {
  WireChargebackListResponse,
  WireConsumerListResponse,
  WireInvoiceCurrentResponse,
  WireInvoiceListResponse,
  WireMediationListResponse,
} from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

describe('sandbox: lists (§4.1, A7, A10)', () => {
  let sandbox: SandboxServer;
  let now = new Date('2026-11-01T13:00:00Z');
  const ids: string[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({
      clock: () => now,
      tokens: [
        {
          token: 'sandbox-token',
          scopes: ['invoice.read', 'invoice.write', 'consumer.read', 'dispute.read'],
        },
        { token: 'invoices-only', scopes: ['invoice.read'] },
      ],
    });
    // 250 invoices over three days; every tenth is referrer "special".
    for (let i = 0; i < 250; i++) {
      now = new Date(Date.UTC(2026, 10, 1 + Math.floor(i / 100), 13, 0, i % 60));
      const body = createBody({
        payment: { id: `order-${i}`, referrer: i % 10 === 0 ? 'special' : `order-${i}` },
      });
      const res = await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', body);
      ids.push(res.body.invoice.id);
    }
  });
  afterAll(() => sandbox.close());

  const list = (query: string, token?: string) =>
    call<WireInvoiceListResponse & WireErrorBody>(sandbox.url, 'GET', `/invoices${query}`, undefined, token);

  it('pages by 100 at most, oldest first, past the first page', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(`?page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ page, limit: 100, total: 250, pages: 3 });
      expect(res.body.invoices.length).toBe(page < 3 ? 100 : 50);
      seen.push(...res.body.invoices.map((i) => i.id));
    }
    expect(seen).toEqual(ids);
    const beyond = await list('?page=4');
    expect(beyond.body.invoices).toEqual([]);
  });

  it('honours smaller limits', async () => {
    const res = await list('?page=2&limit=7');
    expect(res.body.invoices.map((i) => i.id)).toEqual(ids.slice(7, 14));
    expect(res.body.pagination).toEqual({ page: 2, limit: 7, total: 250, pages: 36 });
  });

  it('answers 422 naming limit above 100 or below 1, and page below 1', async () => {
    for (const [query, field] of [
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?page=0', 'page'],
      ['?limit=ten', 'limit'],
    ]) {
      const res = await list(query);
      expect(res.status).toBe(422);
      expect(res.body.errors).toHaveProperty([field]);
    }
  });

  it('filters by status, referrer, payment_id and creation day', async () => {
    await sandbox.controls.pay(ids[3]);
    await sandbox.controls.pay(ids[4]);
    const paid = await list('?status=5');
    expect(paid.body.invoices.map((i) => i.id)).toEqual([ids[3], ids[4]]);
    const special = await list('?referrer=special');
    expect(special.body.pagination.total).toBe(25);
    expect(special.body.invoices.every((i) => i.referrer === 'special')).toBe(true);
    const one = await list('?payment_id=order-42');
    expect(one.body.invoices.map((i) => i.id)).toEqual([ids[42]]);
    const day2 = await list('?created_from=2026-11-02&created_to=2026-11-02');
    expect(day2.body.invoices.map((i) => i.id)).toEqual(ids.slice(100, 200));
    const bad = await list('?created_from=2026-13-01');
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty(['created_from']);
  });

  it('lists consumers, one per document, with consumer.read (A10)', async () => {
    const res = await call<WireConsumerListResponse>(sandbox.url, 'GET', '/consumers?limit=5');
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('consumers');
    expect(res.body.pagination.total).toBe(250);
    expect(Object.keys(res.body.consumers[0]).sort()).toEqual([
      'created_at',
      'document',
      'email',
      'id',
      'name',
    ]);
    const denied = await call<WireErrorBody>(sandbox.url, 'GET', '/consumers', undefined, 'invoices-only');
    expect(denied.status).toBe(403);
    expect(denied.body.required_scope).toBe('consumer.read');
  });

  it('lists mediations and chargebacks opened by the contest control, with dispute.read (A10)', async () => {
    await sandbox.controls.contest(ids[3]);
    await sandbox.controls.contest(ids[4], { kind: 'chargeback', reason: 'fraud' });
    const med = await call<WireMediationListResponse>(sandbox.url, 'GET', '/disputes/mediations');
    expect(med.body.mediations).toEqual([
      expect.objectContaining({
        invoice_id: sandbox.controls.getInvoice(ids[3])?.invoiceId,
        status: 'open',
        amount: 21,
      }),
    ]);
    const chb = await call<WireChargebackListResponse>(sandbox.url, 'GET', '/disputes/chargebacks');
    expect(chb.body.chargebacks).toEqual([expect.objectContaining({ reason: 'fraud', amount: 21 })]);
    expect(Object.keys(chb.body.chargebacks[0]).sort()).toEqual([
      'amount',
      'created_at',
      'id',
      'invoice_id',
      'reason',
      'status',
    ]);
    const denied = await call<WireErrorBody>(
      sandbox.url,
      'GET',
      '/disputes/chargebacks',
      undefined,
      'invoices-only',
    );
    expect(denied.body.required_scope).toBe('dispute.read');
  });
});
