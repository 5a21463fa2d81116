import type { DataSource, EntityManager } from 'typeorm';
import { planStatus } from '../../src/core/invoice-status.service';
import { NO_HISTORY, type StatusReport } from '../../src/core/status-report';
import { InvoiceRecord, InvoiceStatusHistory, NEVER } from '../../src/persistence/invoice.entity';
import { describeEachDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { insertInvoiceRecord } from './fixtures';
import { historyOf, paidInvoice, statusSuite, watchGuardedStatements } from './status-harness';

/** Whether a session of this test's database waits for a lock (PostgreSQL), read outside any transaction. */
async function waitingForALock(ds: DataSource): Promise<boolean> {
  const [row] = await ds.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return row.n > 0;
}

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
 * `InvoiceStatusService.apply` given the record as read and its history: one guarded statement on PostgreSQL, the
 * same writes as the locked path, and nothing written by it when the record or its history moved since the caller
 * read it (the locked path decides then).
 */
describeEachDatabase('InvoiceStatusService.apply with the record as read', (kind) => {
  const paid = (recordId: string): StatusReport => ({
    recordId,
    code: 5,
    source: 'webhook',
    invoice: paidInvoice('gw-x'),
  });
  /**
   * Another writer's applied change in `em`'s transaction, the record's row locked as the status path locks it; it
   * is never handed on, so its history row stays open.
   */
  const writeUnhandedChange = async (em: EntityManager, report: StatusReport) => {
    const record = await em
      .getRepository(InvoiceRecord)
      .createQueryBuilder('r')
      .where('r.id = :id', { id: report.recordId })
      .setLock('pessimistic_write')
      .getOneOrFail();
    const plan = planStatus(record, NO_HISTORY, report, {}, null, Date.now());
    await em.getRepository(InvoiceStatusHistory).insert(plan.history);
    await em.getRepository(InvoiceRecord).update({ id: record.id }, plan.patch);
    return { record: plan.written };
  };

  const s = statusSuite(kind);
  const watch = watchGuardedStatements();
  const statements = () => watch.statements();

  const read = (id: string) => s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id });

  if (kind === 'sqlite') {
    it('takes the locked path on SQLite (no guarded statement)', async () => {
      const rec = await read((await insertInvoiceRecord(s.ds)).id);
      const { result } = await s.h.service.apply(paid(rec.id), { record: rec, known: NO_HISTORY });
      expect(watch.calls).not.toHaveBeenCalled();
      expect(result).toMatchObject({ applied: true, previousCode: null });
      expect((await historyOf(s.ds, rec.id)).map((r) => r.toCode)).toEqual([5]);
      expect((await read(rec.id)).version).toBe(rec.version + 1);
    });
    return;
  }

  it('writes what the locked path writes, answers the record as stored, and the port hears it once', async () => {
    const a = await read((await insertInvoiceRecord(s.ds)).id);
    const b = await read((await insertInvoiceRecord(s.ds)).id);
    const known = await s.h.service.apply(paid(a.id), {
      record: a,
      known: NO_HISTORY,
      creation: { from: ['created'], patch: { gatewayId: a.gatewayId, failureReason: null } },
    });
    expect(await statements()).toEqual([true]);
    const locked = await s.h.service.apply(paid(b.id));
    await s.h.dispatcher.drain();

    expect(known.result).toEqual({ ...locked.result, historyId: known.result.historyId, recordId: a.id });
    expect(await read(a.id)).toEqual(known.record);
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

  it('writes nothing by the statement when the record was written since (its version moved)', async () => {
    const before = await read((await insertInvoiceRecord(s.ds)).id);
    await s.h.service.apply({ recordId: before.id, code: 1, text: 'pending', source: 'create' });
    await s.h.dispatcher.drain();
    const { result } = await s.h.service.apply(paid(before.id), { record: before, known: NO_HISTORY });
    expect(await statements()).toEqual([false]);
    // The locked path read the record as it is now and decided from it.
    expect(result).toMatchObject({ applied: true, previousCode: 1 });
    expect((await historyOf(s.ds, before.id)).map((r) => r.toCode)).toEqual([1, 5]);
    expect(await read(before.id)).toMatchObject({ statusCode: 5, version: before.version + 2 });
  });

  it('puts a record off the schedule back on it in the statement itself, with the watched status it applies', async () => {
    const rec = await read((await insertInvoiceRecord(s.ds, { statusCode: 5, nextCheckAt: NEVER })).id);
    const refund = { recordId: rec.id, code: 7, source: 'operation' } as const;
    await s.h.service.apply(refund, { record: rec, known: NO_HISTORY });
    expect(await statements()).toEqual([true]);
    const back = await read(rec.id);
    expect(back).toMatchObject({ statusCode: 7, version: rec.version + 1 });
    expect(back.nextCheckAt?.getTime()).toBeLessThan(NEVER.getTime());
    expect(back.watchedFrom).toEqual(back.nextCheckAt);
  });

  it('writes nothing by the statement when the reconciliation took the record off since (no version bump)', async () => {
    const due = new Date(Date.now() + 60_000);
    const rec = await read((await insertInvoiceRecord(s.ds, { statusCode: 1, nextCheckAt: due })).id);
    // Its window ended: the reconciliation's own write, which leaves the version as it is.
    await s.ds.query('UPDATE invoice_payments_invoice SET next_check_at = $1 WHERE id = $2', [
      NEVER.toISOString(),
      rec.id,
    ]);
    const { result } = await s.h.service.apply(
      { recordId: rec.id, code: 2, source: 'webhook' },
      { record: rec, known: NO_HISTORY },
    );
    expect(await statements()).toEqual([false]);
    // The locked path read it off the schedule: the watched status it applied put it back.
    expect(result).toMatchObject({ applied: true, previousCode: 1 });
    const back = await read(rec.id);
    expect(back.statusCode).toBe(2);
    expect(back.nextCheckAt?.getTime()).toBeLessThan(NEVER.getTime());
  });

  it('writes nothing by the statement when the history moved without the record (a refused report)', async () => {
    const rec = await read((await insertInvoiceRecord(s.ds, { statusCode: 5, statusText: 'paid' })).id);
    // Paid never goes back to pending: refused, recorded, the record untouched.
    const { result: refused } = await s.h.service.apply({ recordId: rec.id, code: 1, source: 'webhook' });
    expect(refused.applied).toBe(false);
    expect((await read(rec.id)).version).toBe(rec.version);
    const { result } = await s.h.service.apply(paid(rec.id), { record: rec, known: NO_HISTORY });
    expect(await statements()).toEqual([false]);
    expect(result).toMatchObject({ applied: false, previousCode: 5 });
    expect(await historyOf(s.ds, rec.id)).toHaveLength(2);
  });

  it('writes nothing by the statement when a change it took as delivered is still to deliver', async () => {
    const open = async () => {
      const rec = await read((await insertInvoiceRecord(s.ds)).id);
      const { record } = await s.ds.transaction((em) =>
        writeUnhandedChange(em, { recordId: rec.id, code: 1, source: 'create' }),
      );
      const [row] = await historyOf(s.ds, rec.id);
      return { record, known: { latest: row.createdAt.toISOString(), openChanges: 0 } };
    };
    const wrong = await open();
    await s.h.service.apply(paid(wrong.record.id), wrong);
    expect(await statements()).toEqual([false]);
    const right = await open();
    const { result } = await s.h.service.apply(paid(right.record.id), {
      record: right.record,
      known: { ...right.known, openChanges: 1 },
    });
    expect(await statements()).toEqual([false, true]);
    expect(result).toMatchObject({ applied: true, previousCode: 1 });
    expect((await historyOf(s.ds, right.record.id)).map((r) => r.toCode)).toEqual([1, 5]);
  });

  it('waits for a transaction holding the record and writes nothing by the statement once it committed a change', async () => {
    const rec = await read((await insertInvoiceRecord(s.ds)).id);
    let applying: Promise<unknown> | undefined;
    await s.ds.transaction(async (em) => {
      await writeUnhandedChange(em, { recordId: rec.id, code: 1, source: 'create' });
      applying = s.h.service.apply(paid(rec.id), { record: rec, known: NO_HISTORY });
      await waitFor(() => watch.calls.mock.calls.length === 1, 10_000, 'the guarded statement issued');
      if (kind === 'postgres')
        await waitFor(() => waitingForALock(s.ds), 10_000, 'the statement waiting for our lock');
    });
    await applying;
    expect(await statements()).toEqual([false]);
    // The locked path then applied the report over what that transaction committed.
    expect((await historyOf(s.ds, rec.id)).map((r) => r.toCode)).toEqual([1, 5]);
    expect((await read(rec.id)).statusCode).toBe(5);
  });
});
