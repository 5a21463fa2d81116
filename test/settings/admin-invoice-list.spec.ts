import { BadRequestException, Logger } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import { INVOICE_PAYMENTS_ENTITIES, INVOICE_PAYMENTS_MIGRATIONS } from '../../src/index';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import type { ListInvoicesQueryDto as AdminInvoiceQuery } from '../../src/settings/admin.dto';
import { AdminInvoicesService, TOTAL_CAP } from '../../src/settings/admin-invoices.service';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

/** Past the total's cap, so the list has to say "10 000+". */
const ROWS = TOTAL_CAP + 40;
/** Rows created at one instant (the list's order then goes by id). */
const SAME_INSTANT = 30;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const NAMES = ['Joana Prado_Teste', 'Maria Silva', 'Carlos Souza Lima', 'Ana Paula Silveira'];

function record(g: number): Partial<InvoiceRecord> {
  const name = NAMES[g % NAMES.length];
  // The last SAME_INSTANT rows share the newest instant; the others a minute apart.
  const at = new Date(T0 + Math.min(g, ROWS - SAME_INSTANT) * 60_000);
  return {
    id: `00000000-0000-4000-8000-${g.toString(16).padStart(12, '0')}`,
    orderId: `order_${g}`,
    attempt: 1,
    referrer: `ref_${g}`,
    creationState: g % 100 === 0 ? 'unknown' : 'created',
    method: (['pix', 'billet', 'card'] as const)[g % 3],
    gatewayId: `INV${g}`,
    statusCode: g % 10 === 0 ? 6 : 5,
    currency: 'BRL',
    amountCents: 1000,
    displayId: String(50_000 + g),
    customerName: name,
    customerEmail: `${name.split(' ')[0].toLowerCase()}.${g}@example.com`,
    createdAt: at,
    updatedAt: at,
  };
}

/** The statements the service sends, caught on their way to the database (to read their plans). */
function catchStatements(dataSource: DataSource): Array<{ sql: string; params: unknown[] }> {
  const seen: Array<{ sql: string; params: unknown[] }> = [];
  const create = dataSource.createQueryRunner.bind(dataSource);
  jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((mode) => {
    const runner: QueryRunner = create(mode);
    const query = runner.query.bind(runner) as (sql: string, ...rest: unknown[]) => Promise<unknown>;
    (runner as { query: unknown }).query = (sql: string, params?: unknown[], ...rest: unknown[]) => {
      seen.push({ sql, params: params ?? [] });
      return query(sql, params, ...rest);
    };
    return runner;
  });
  return seen;
}

describeEachDatabase('the admin invoice list at scale', (kind) => {
  let db: TestDatabase;
  let service: AdminInvoicesService;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: INVOICE_PAYMENTS_ENTITIES,
      migrations: INVOICE_PAYMENTS_MIGRATIONS,
    });
    const repo = db.dataSource.getRepository(InvoiceRecord);
    for (let from = 1; from <= ROWS; from += 500) {
      const chunk = Array.from({ length: Math.min(500, ROWS - from + 1) }, (_, i) => record(from + i));
      await repo.insert(chunk);
    }
    if (kind === 'postgres') await db.dataSource.query('ANALYZE invoice_payments_invoice');
    else await db.dataSource.query('ANALYZE');
    service = new AdminInvoicesService(db.dataSource);
  }, 60_000);
  afterAll(async () => db.destroy());
  afterEach(() => jest.restoreAllMocks());

  /** Every id of the list, page after page by `nextCursor`. */
  async function walk(query: AdminInvoiceQuery): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await service.list({ ...query, ...(cursor ? { cursor } : {}) });
      ids.push(...page.items.map((i) => i.id));
      if (!page.nextCursor) return ids;
      cursor = page.nextCursor;
    }
    throw new Error('the list never ended');
  }

  it('counts up to the cap and says there are more ("10 000+"), and counts a smaller list exactly', async () => {
    const first = await service.list({ limit: 20 });
    expect(first).toMatchObject({ page: 1, limit: 20, total: TOTAL_CAP, totalCapped: true, pages: 500 });
    expect(first.items).toHaveLength(20);
    const canceled = await service.list({ status: 6, limit: 20 });
    expect(canceled).toMatchObject({ total: ROWS / 10, totalCapped: false });
    expect(canceled.items.every((i) => i.statusCode === 6)).toBe(true);
  });

  it('pages by cursor through a filtered list: each row once, newest first, ties by id', async () => {
    const expected = (
      await db.dataSource
        .getRepository(InvoiceRecord)
        .find({ where: { method: 'card' }, order: { createdAt: 'DESC', id: 'DESC' }, select: { id: true } })
    ).map((r) => r.id);
    const walked = await walk({ method: 'card', limit: 100 });
    expect(walked).toEqual(expected);
  });

  it('pages through rows created at one instant without losing or repeating one', async () => {
    const newest = new Date(T0 + (ROWS - SAME_INSTANT) * 60_000);
    const walked = await walk({ createdFrom: newest.toISOString(), limit: 7 });
    expect(walked).toHaveLength(SAME_INSTANT + 1);
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual([...walked].sort().reverse());
  });

  it('reads page 2 by offset as before, and the same rows by cursor', async () => {
    const first = await service.list({ limit: 20 });
    const byOffset = await service.list({ limit: 20, page: 2 });
    const byCursor = await service.list({ limit: 20, page: 2, cursor: first.nextCursor as string });
    expect(byCursor.items.map((i) => i.id)).toEqual(byOffset.items.map((i) => i.id));
    expect(byCursor.page).toBe(2);
  });

  it('refuses a cursor it did not give, naming the field', async () => {
    for (const cursor of ['abc', Buffer.from('["yesterday","x"]').toString('base64url')]) {
      const refused = await service.list({ cursor }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(BadRequestException);
      expect((refused as BadRequestException).getResponse()).toMatchObject({ field: 'cursor' });
    }
  });

  it('searches the start of the order id and number, the invoice number, the e-mail, and of a word of the name', async () => {
    const ids = async (q: string, extra: AdminInvoiceQuery = {}) =>
      (await service.list({ q, limit: 100, ...extra })).items.map((i) => i.orderId);
    expect(await ids('order_1234')).toEqual(['order_1234']);
    expect(await ids('51234')).toEqual(['order_1234']);
    expect(await ids('inv1234')).toEqual(['order_1234']);
    expect(await ids('MARIA.1237@')).toEqual(['order_1237']);
    // The middle of a value is not its start.
    expect(await ids('1237@example')).toEqual([]);
    expect(await ids('rder_1234')).toEqual([]);
    // A word of the name, any case, with the filters.
    const silva = await service.list({ q: 'SILVA', limit: 5 });
    expect(silva.total).toBe(Math.floor(ROWS / 4));
    expect(silva.items.every((i) => i.customer.name === 'Maria Silva')).toBe(true);
    expect(
      (await service.list({ q: 'paula silv', method: 'card' })).items.map((i) => i.customer.name),
    ).toEqual(Array(20).fill('Ana Paula Silveira'));
    // LIKE's wildcards are taken literally.
    expect((await service.list({ q: 'prado_t' })).total).toBe(Math.floor(ROWS / 4));
    expect((await service.list({ q: 'prado%t' })).total).toBe(0);
    expect((await service.list({ q: 'silva lima' })).total).toBe(0);
  });

  it('reads a page as an index range in the list order (no sort of the table)', async () => {
    const seen = catchStatements(db.dataSource);
    const first = await service.list({ limit: 20 });
    await service.list({ limit: 20, cursor: first.nextCursor as string });
    await service.list({ limit: 20, status: 6 });
    // (One runner may pass a statement to another: each distinct statement once.)
    const distinct = new Map(seen.map((s) => [`${s.sql} ${JSON.stringify(s.params)}`, s]));
    const pages = [...distinct.values()].filter((s) => /ORDER BY/i.test(s.sql));
    expect(pages).toHaveLength(3);
    for (const { sql, params } of pages) {
      if (kind === 'postgres') {
        const plan = (await db.dataSource.query(`EXPLAIN ${sql}`, params)) as Array<{ 'QUERY PLAN': string }>;
        const text = plan.map((r) => r['QUERY PLAN']).join('\n');
        expect(text).toMatch(/Index Scan Backward using "IDX_invoice_payments_invoice_(created|status)"/);
        expect(text).not.toMatch(/Sort/);
      } else {
        const plan = (await db.dataSource.query(`EXPLAIN QUERY PLAN ${sql}`, params)) as Array<{
          detail: string;
        }>;
        const text = plan.map((r) => r.detail).join('\n');
        expect(text).toMatch(/IDX_invoice_payments_invoice_(created|status)/);
        expect(text).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it('warns once at start when PostgreSQL has no index for names (pg_trgm missing), and finds them all the same', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    expect(await service.checkNameIndex()).toBe(true);
    expect(warn).not.toHaveBeenCalled();
    if (kind !== 'postgres') return;
    await db.dataSource.query('DROP INDEX "IDX_invoice_payments_invoice_q_name"');
    try {
      expect(await service.checkNameIndex()).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('pg_trgm was not available'));
      // The search still answers, by a scan.
      expect((await service.list({ q: 'prado_t' })).total).toBe(Math.floor(ROWS / 4));
    } finally {
      await db.dataSource.query(
        `CREATE INDEX "IDX_invoice_payments_invoice_q_name" ON invoice_payments_invoice USING gin (lower(customer_name) gin_trgm_ops)`,
      );
    }
  });
});
