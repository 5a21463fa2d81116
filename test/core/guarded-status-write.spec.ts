import type { DataSource } from 'typeorm';
import { NO_HISTORY, type StatusReport } from '../../src/core/invoice-status.service';
import { InvoiceStatusHistory } from '../../src/persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { describeEachDatabase } from '../support/databases';
import { insertInvoiceRecord } from './fixtures';
import { historyOf, paidInvoice, statusSuite } from './status-harness';

/** The record as stored, with what differs between two records of the same history left out. */
async function stored(ds: DataSource, id: string) {
  const r = await ds.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const {
    id: _id,
    orderId: _o,
    openOrderId: _oo,
    referrer: _r,
    gatewayId: _g,
    createdAt: _c,
    updatedAt: _u,
    ...rest
  } = r;
  return rest;
}

/**
 * `InvoiceStatusService.applyKnown`: one guarded statement on PostgreSQL, the same writes as the locked path, and
 * nothing at all when the record or its history moved since the caller read it.
 */
describeEachDatabase('InvoiceStatusService.applyKnown', (kind) => {
  const paid = (recordId: string): StatusReport => ({
    recordId,
    code: 5,
    source: 'webhook',
    invoice: paidInvoice('gw-x'),
  });

  const s = statusSuite(kind);

  const read = (id: string) => s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id });

  if (kind === 'sqlite') {
    it('writes nothing on SQLite (the caller takes the locked path)', async () => {
      const rec = await read((await insertInvoiceRecord(s.ds)).id);
      expect(await s.h.service.applyKnown(rec, NO_HISTORY, paid(rec.id))).toBeNull();
      expect(await historyOf(s.ds, rec.id)).toEqual([]);
      expect((await read(rec.id)).version).toBe(rec.version);
    });
    return;
  }

  it('writes what the locked path writes, answers the record as stored, and the port hears it once', async () => {
    const a = await read((await insertInvoiceRecord(s.ds)).id);
    const b = await read((await insertInvoiceRecord(s.ds)).id);
    const known = await s.h.service.applyKnown(a, NO_HISTORY, paid(a.id), { failureReason: null });
    expect(known).not.toBeNull();
    s.h.service.afterCommit(known!.result);
    const locked = await s.h.service.applyReport(paid(b.id));
    await s.h.dispatcher.drain();

    expect(known!.result).toEqual({ ...locked, historyId: known!.result.historyId, recordId: a.id });
    expect(await read(a.id)).toEqual(known!.record);
    expect(await stored(s.ds, a.id)).toEqual(await stored(s.ds, b.id));
    const strip = ({
      id: _i,
      invoiceRecordId: _r,
      createdAt: _c,
      notifiedAt: _n,
      ...row
    }: InvoiceStatusHistory) => row;
    const [rowA] = await historyOf(s.ds, a.id);
    const [rowB] = await historyOf(s.ds, b.id);
    expect(strip(rowA)).toEqual(strip(rowB));
    expect(rowA.notifiedAt).toBeInstanceOf(Date);
    expect(s.h.port.changes.filter((c) => c.invoiceRecordId === a.id)).toHaveLength(1);
  });

  it('writes nothing when the record was written since (its version moved)', async () => {
    const before = await read((await insertInvoiceRecord(s.ds)).id);
    await s.h.service.applyReport({ recordId: before.id, code: 1, text: 'pending', source: 'create' });
    await s.h.dispatcher.drain();
    expect(await s.h.service.applyKnown(before, NO_HISTORY, paid(before.id))).toBeNull();
    expect((await historyOf(s.ds, before.id)).map((r) => r.toCode)).toEqual([1]);
    expect(await read(before.id)).toMatchObject({ statusCode: 1, version: before.version + 1 });
  });

  it('writes nothing when the history moved without the record (a refused report)', async () => {
    const rec = await read((await insertInvoiceRecord(s.ds, { statusCode: 5, statusText: 'paid' })).id);
    // Paid never goes back to pending: refused, recorded, the record untouched.
    const refused = await s.h.service.applyReport({ recordId: rec.id, code: 1, source: 'webhook' });
    expect(refused.applied).toBe(false);
    expect((await read(rec.id)).version).toBe(rec.version);
    expect(await s.h.service.applyKnown(rec, NO_HISTORY, paid(rec.id))).toBeNull();
    expect(await historyOf(s.ds, rec.id)).toHaveLength(1);
  });

  it('writes nothing when a change it took as delivered is still to deliver', async () => {
    const rec = await read((await insertInvoiceRecord(s.ds)).id);
    const { record } = await s.ds.transaction((em) =>
      s.h.service.applyWithin(em, { recordId: rec.id, code: 1, source: 'create' }),
    ); // applied, never handed on: its row stays open
    const [row] = await historyOf(s.ds, rec.id);
    const known = { latest: row.createdAt.toISOString(), openChanges: 0 };
    expect(await s.h.service.applyKnown(record, known, paid(rec.id))).toBeNull();
    const right = await s.h.service.applyKnown(record, { ...known, openChanges: 1 }, paid(rec.id));
    expect(right?.result).toMatchObject({ applied: true, previousCode: 1 });
    expect((await historyOf(s.ds, rec.id)).map((r) => r.toCode)).toEqual([1, 5]);
  });

  it('waits for a transaction holding the record and writes nothing once it committed a change', async () => {
    const rec = await read((await insertInvoiceRecord(s.ds)).id);
    let guarded: Promise<unknown> | undefined;
    await s.ds.transaction(async (em) => {
      await s.h.service.applyWithin(em, { recordId: rec.id, code: 1, source: 'create' });
      guarded = s.h.service.applyKnown(rec, NO_HISTORY, paid(rec.id));
      await new Promise((r) => setTimeout(r, 150)); // the guarded statement waits for our row lock meanwhile
    });
    expect(await guarded).toBeNull();
    expect((await historyOf(s.ds, rec.id)).map((r) => r.toCode)).toEqual([1]);
    expect((await read(rec.id)).statusCode).toBe(1);
  });
});
