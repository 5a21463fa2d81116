import { GatewayClient } from '../../src/gateway/gateway.client';
import { validCreateParams } from './fixtures';
import { Harness, startHarness } from './support/harness';

const TOTAL = 250;

/** Paging past the 100-invoice page limit (§4.1, A7), lazily. */
describe('GatewayClient paging (sandbox over HTTP)', () => {
  let h: Harness;
  let client: GatewayClient;

  beforeAll(async () => {
    h = await startHarness({ autoProcessCards: false });
    client = h.client();
    for (let i = 0; i < TOTAL; i++) {
      const params = validCreateParams();
      params.payment.referrer = `bulk-${String(i).padStart(3, '0')}`;
      params.payment.id = `order-${i}`;
      await client.createInvoice(params);
    }
  });
  afterAll(() => h.close());
  beforeEach(() => h.proxy.reset());

  const listCalls = () => h.proxy.apiRequests().filter((r) => r.method === 'GET' && r.path === '/invoices');

  it('iterates every invoice once, oldest first, fetching pages only as the iteration reaches them', async () => {
    const iterator = client.iterateInvoices();
    expect(listCalls()).toHaveLength(0); // nothing fetched before the first next()

    const seen: string[] = [];
    const referrers: string[] = [];
    const callsAt: number[] = [];
    for (let result = await iterator.next(); !result.done; result = await iterator.next()) {
      seen.push(result.value.id);
      referrers.push(result.value.referrer ?? '');
      callsAt.push(listCalls().length);
    }
    expect(seen).toHaveLength(TOTAL);
    expect(new Set(seen).size).toBe(TOTAL);
    expect(referrers).toEqual([...referrers].sort());
    // Item 1..100 came from page 1, 101..200 from page 2, 201..250 from page 3.
    expect(callsAt[0]).toBe(1);
    expect(callsAt[99]).toBe(1);
    expect(callsAt[100]).toBe(2);
    expect(callsAt[199]).toBe(2);
    expect(callsAt[200]).toBe(3);
    expect(listCalls().map((r) => r.query.get('page'))).toEqual(['1', '2', '3']);
    expect(listCalls().every((r) => r.query.get('limit') === '100')).toBe(true);
  });

  it('stops fetching when the caller stops iterating', async () => {
    let n = 0;
    for await (const invoice of client.iterateInvoices({ limit: 30 })) {
      expect(invoice.id).toBeTruthy();
      if (++n === 45) break;
    }
    expect(listCalls().map((r) => r.query.get('page'))).toEqual(['1', '2']);
  });

  it('passes filters to every page and ends at the last page', async () => {
    const ids: string[] = [];
    for await (const invoice of client.iterateInvoices({ limit: 7, status: 1 })) ids.push(invoice.id);
    expect(ids).toHaveLength(TOTAL);
    expect(listCalls()).toHaveLength(Math.ceil(TOTAL / 7));
    expect(listCalls().every((r) => r.query.get('status') === '1' && r.query.get('limit') === '7')).toBe(
      true,
    );
  });

  it('listInvoices refuses a page size above 100 without sending', async () => {
    await expect(client.listInvoices({ limit: 101 })).rejects.toMatchObject({
      kind: 'validation',
      sent: false,
    });
    expect(listCalls()).toHaveLength(0);
  });

  it('findInvoiceByReferrer pages through the filtered list', async () => {
    const found = await client.findInvoiceByReferrer('bulk-137');
    expect(found?.referrer).toBe('bulk-137');
    expect(listCalls().map((r) => r.query.get('referrer'))).toEqual(['bulk-137']);
  });
});
