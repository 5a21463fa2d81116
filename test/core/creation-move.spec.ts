import { NO_HISTORY, type StatusReport } from '../../src/core/status-report';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { describeEachDatabase } from '../support/databases';
import { insertInvoiceRecord } from './fixtures';
import { historyOf, paidInvoice, statusSuite, watchGuardedStatements } from './status-harness';
import { CreationMoveRefusedError } from '../../src/core/invoice.errors';
import type { CreationMove } from '../../src/core/invoice-record.store';

/**
 * A creation move written with a report is a compare-and-set on both write paths: the record in a state the move
 * starts from, holding no invoice or the move's own. Else the report is refused whole: no history row, no status,
 * no field of the move.
 */
describeEachDatabase('InvoiceStatusService.apply with a creation move', (kind) => {
  const s = statusSuite(kind);
  const watch = watchGuardedStatements();
  const statements = () => watch.statements();

  const read = (id: string) => s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const answer = (recordId: string, gatewayId: string): StatusReport => ({
    recordId,
    code: 5,
    source: 'create',
    invoice: paidInvoice(gatewayId),
  });
  const created = (gatewayId: string): CreationMove => ({
    from: ['pending', 'unknown', 'failed'],
    patch: { gatewayId, creationState: 'created', failureReason: null },
  });
  /** An attempt as its claim wrote it: no invoice, no status. */
  const attempt = async () =>
    read((await insertInvoiceRecord(s.ds, { creationState: 'pending', gatewayId: null })).id);
  /** Links the record to `gatewayId` the way an adoption does: a compare-and-set that moves its version. */
  const linkMeanwhile = async (id: string, gatewayId: string) => {
    const moved = await s.ds
      .getRepository(InvoiceRecord)
      .createQueryBuilder()
      .update()
      .set({ gatewayId, creationState: 'created' })
      .where('id = :id AND gateway_id IS NULL', { id })
      .execute();
    expect(moved.affected).toBe(1);
  };
  const refused = (promise: Promise<unknown>) =>
    expect(promise).rejects.toBeInstanceOf(CreationMoveRefusedError);

  it('locked path: refuses a record linked to another invoice, writing nothing', async () => {
    const rec = await attempt();
    await linkMeanwhile(rec.id, `other-${rec.id}`);
    const before = await read(rec.id);
    await refused(s.h.service.apply(answer(rec.id, `new-${rec.id}`), { creation: created(`new-${rec.id}`) }));
    expect(watch.calls).not.toHaveBeenCalled();
    expect(await read(rec.id)).toEqual(before);
    expect(await historyOf(s.ds, rec.id)).toEqual([]);
  });

  it('locked path: refuses a record in no state the move starts from', async () => {
    const rec = await attempt();
    const move: CreationMove = { from: ['unknown'], patch: { creationState: 'pending' } };
    await refused(s.h.service.apply({ recordId: rec.id, code: 1, source: 'create' }, { creation: move }));
    expect(await read(rec.id)).toEqual(rec);
    expect(await historyOf(s.ds, rec.id)).toEqual([]);
  });

  it('guarded path: a record as read that was linked since is refused, its statement writing nothing', async () => {
    const rec = await attempt();
    await linkMeanwhile(rec.id, `other-${rec.id}`);
    const before = await read(rec.id);
    const options = { record: rec, known: NO_HISTORY, creation: created(`new-${rec.id}`) };
    await refused(s.h.service.apply(answer(rec.id, `new-${rec.id}`), options));
    // PostgreSQL's one statement found the record moved (its version); the locked path then refused the move.
    expect(await statements()).toEqual(kind === 'postgres' ? [false] : []);
    expect(await read(rec.id)).toEqual(before);
    expect(await historyOf(s.ds, rec.id)).toEqual([]);
  });

  it('guarded path: a record as read that refuses the move is never written by the statement', async () => {
    const rec = await attempt();
    await linkMeanwhile(rec.id, `other-${rec.id}`);
    const linked = await read(rec.id);
    const options = { record: linked, known: NO_HISTORY, creation: created(`new-${rec.id}`) };
    await refused(s.h.service.apply(answer(rec.id, `new-${rec.id}`), options));
    expect(watch.calls).not.toHaveBeenCalled();
    expect(await read(rec.id)).toEqual(linked);
    expect(await historyOf(s.ds, rec.id)).toEqual([]);
  });

  it('writes the status onto a record an adoption already linked to the same invoice, before its status', async () => {
    const rec = await attempt();
    await linkMeanwhile(rec.id, `new-${rec.id}`);
    const move: CreationMove = { ...created(`new-${rec.id}`), from: ['pending', 'unknown'] };
    const applied = await s.h.service.apply(answer(rec.id, `new-${rec.id}`), { creation: move });
    expect(applied.result.applied).toBe(true);
    expect(await read(rec.id)).toMatchObject({
      gatewayId: `new-${rec.id}`,
      creationState: 'created',
      statusCode: 5,
    });
    expect((await historyOf(s.ds, rec.id)).map((r) => r.toCode)).toEqual([5]);
    await s.h.dispatcher.drain();
  });

  it('writes the move with the status on both paths when the record allows it', async () => {
    const fresh = await attempt();
    const viaRead = await s.h.service.apply(answer(fresh.id, `new-${fresh.id}`), {
      record: fresh,
      known: NO_HISTORY,
      creation: created(`new-${fresh.id}`),
    });
    expect(await statements()).toEqual(kind === 'postgres' ? [true] : []);
    // The record already holds the move's own number (a webhook named it first): the move still applies.
    const named = await attempt();
    await s.ds.getRepository(InvoiceRecord).update({ id: named.id }, { gatewayId: `new-${named.id}` });
    const locked = await s.h.service.apply(answer(named.id, `new-${named.id}`), {
      creation: created(`new-${named.id}`),
    });
    for (const [rec, applied] of [
      [fresh, viaRead],
      [named, locked],
    ] as const) {
      expect(applied.result.applied).toBe(true);
      expect(await read(rec.id)).toMatchObject({
        gatewayId: `new-${rec.id}`,
        creationState: 'created',
        statusCode: 5,
      });
      expect((await historyOf(s.ds, rec.id)).map((r) => r.toCode)).toEqual([5]);
    }
    await s.h.dispatcher.drain();
  });
});
