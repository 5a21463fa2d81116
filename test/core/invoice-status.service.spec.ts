import { DataSource, IsNull } from 'typeorm';
import type { PaymentStatusChange } from '../../src/core/ports';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';
import { databaseKinds, describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { insertInvoiceRecord } from './fixtures';
import { entities, harness, historyOf, paidInvoice, statusSuite } from './status-harness';
import { ReportedRecordNotFoundError } from '../../src/core/invoice.errors';
import { transitionOfRow } from '../../src/core/status-report';

describeEachDatabase('InvoiceStatusService', (kind) => {
  const s = statusSuite(kind);

  it('applies a first status, records it and notifies the port and the bus once', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    const { result } = await s.h.service.apply({
      recordId: rec.id,
      code: 1,
      text: 'pending',
      source: 'create',
    });
    expect(result).toEqual({
      applied: true,
      previousCode: null,
      verdict: 'apply',
      historyId: expect.any(String),
      recordId: rec.id,
    });
    await s.h.dispatcher.drain();

    const stored = await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
    expect(stored.statusCode).toBe(1);
    expect(stored.statusText).toBe('pending');
    const history = await historyOf(s.ds, rec.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      fromCode: null,
      toCode: 1,
      applied: true,
      source: 'create',
      notifyAttempts: 1,
    });
    expect(history[0].notifiedAt).toBeInstanceOf(Date);

    expect(s.h.port.changes).toHaveLength(1);
    expect(s.h.port.changes[0]).toMatchObject({
      orderId: rec.orderId,
      invoiceRecordId: rec.id,
      gatewayId: rec.gatewayId,
      method: 'pix',
      previous: null,
      current: { code: 1, text: 'pending', sessionStatus: 'pending', orderPaymentStatus: 'awaiting' },
      source: 'create',
    });
    expect(s.h.busChanges).toEqual(s.h.port.changes);
  });

  it('refreshes the snapshot from the invoice and reports the previous status', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    await s.h.service.apply({ recordId: rec.id, code: 1, text: 'pending', source: 'create' });
    await s.h.service.apply({
      recordId: rec.id,
      code: 5,
      source: 'webhook',
      invoice: paidInvoice('gw-x'),
    });
    await s.h.dispatcher.drain();

    const stored = await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
    expect(stored).toMatchObject({
      statusCode: 5,
      statusText: 'paid',
      gatewayId: rec.gatewayId, // known ids are never replaced by a payload's
      gatewayUuid: 'uuid-1',
      gatewayInvoiceId: 'inv-1',
      grossCents: 10_050,
      netCents: 9_900,
      feesCents: 150,
      shippingCents: 1_000,
      paidCents: 10_050,
      pixPayload: '000201...',
      dueDate: '2026-12-01',
      paymentUrl: 'https://pay.example/1',
      openOrderId: rec.orderId,
    });
    expect(JSON.parse(stored.rawSnapshot!)).toEqual({ id: 'gw-x', marker: 'raw-paid' });
    expect(s.h.port.changes.map((c) => [c.previous?.code ?? null, c.current.code])).toEqual([
      [null, 1],
      [1, 5],
    ]);
    expect(s.h.port.changes[1].previous).toEqual({
      code: 1,
      text: 'pending',
      sessionStatus: 'pending',
      orderPaymentStatus: 'awaiting',
    });
    expect(s.h.port.changes[1].current.orderPaymentStatus).toBe('captured');
  });

  it('records a backwards report without applying it, touching the record or notifying', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    await s.h.service.apply({
      recordId: rec.id,
      code: 5,
      source: 'webhook',
      invoice: paidInvoice('gw'),
    });
    const stale = {
      ...paidInvoice('gw'),
      pix: null,
      amounts: { ...paidInvoice('gw').amounts, grossCents: 1 },
    };
    const { result } = await s.h.service.apply({
      recordId: rec.id,
      code: 1,
      text: 'pending',
      source: 'webhook',
      invoice: stale,
    });
    await s.h.dispatcher.drain();

    expect(result).toMatchObject({
      applied: false,
      previousCode: 5,
      verdict: 'backwards',
      reason: expect.stringMatching(/^backwards/),
    });
    const stored = await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
    expect(stored.statusCode).toBe(5);
    expect(stored.grossCents).toBe(10_050);
    const history = await historyOf(s.ds, rec.id);
    expect(history.map((r) => [r.toCode, r.applied])).toEqual([
      [5, true],
      [1, false],
    ]);
    // The history keeps the codes, from which the verdict is decided again; no sentence to read back.
    expect(history[1]).toMatchObject({ fromCode: 5, toCode: 1, note: null });
    expect(transitionOfRow(history[1])?.verdict).toBe('backwards');
    expect(s.h.port.changes.map((c) => c.current.code)).toEqual([5]);
  });

  it('records an unknown status code and never applies it', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    await s.h.service.apply({ recordId: rec.id, code: 1, source: 'create' });
    const { result } = await s.h.service.apply({
      recordId: rec.id,
      code: 13,
      text: 'mystery',
      source: 'webhook',
    });
    await s.h.dispatcher.drain();
    expect(result.applied).toBe(false);
    expect(result.reason).toContain('unknown status code 13');
    expect((await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode).toBe(1);
    const history = await historyOf(s.ds, rec.id);
    expect(history[1]).toMatchObject({ toCode: 13, applied: false, statusText: 'mystery' });
    expect(s.h.port.changes).toHaveLength(1);
  });

  it('closes the order on cancel; paid after cancel is applied, flagged and raised as an alert', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    await s.h.service.apply({ recordId: rec.id, code: 1, source: 'create' });
    await s.h.service.apply({ recordId: rec.id, code: 6, text: 'canceled', source: 'operation' });
    expect((await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).openOrderId).toBeNull();
    const { result } = await s.h.service.apply({ recordId: rec.id, code: 5, source: 'webhook' });
    await s.h.dispatcher.drain();

    expect(result).toMatchObject({ applied: true, previousCode: 6, alert: 'paid_after_cancel' });
    const stored = await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
    expect(stored.statusCode).toBe(5);
    expect(stored.openOrderId).toBeNull(); // never reopened: the order may have a newer attempt
    expect(s.h.port.changes.map((c) => c.current.code)).toEqual([1, 6, 5]);
    expect(s.h.port.changes[2]).toMatchObject({ alert: 'paid_after_cancel', previous: { code: 6 } });
    expect(s.h.alerts).toEqual([
      {
        kind: 'paid_after_cancel',
        orderId: rec.orderId,
        invoiceRecordId: rec.id,
        message: expect.stringContaining('money must go back'),
      },
    ]);
    const history = await historyOf(s.ds, rec.id);
    expect(history[2].alert).toBe('paid_after_cancel');
  });

  it('keeps a captured invoice total and payment reported anew, leaves the order as it is, alerts once per amount', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    await s.h.service.apply({ recordId: rec.id, code: 5, source: 'webhook', invoice: paidInvoice('gw') });
    const paid = paidInvoice('gw');
    const anew = { ...paid, amounts: { ...paid.amounts, grossCents: 12_000 } };
    // Five copies at once, then a refund request carrying the same amount: one alert.
    await Promise.all(
      Array.from({ length: 5 }, () =>
        s.h.service.apply({ recordId: rec.id, code: 5, source: 'webhook', invoice: anew }),
      ),
    );
    const refunding = { ...anew, status: { ...anew.status, code: 7, text: 'refund requested' } };
    await s.h.service.apply({ recordId: rec.id, code: 7, source: 'webhook', invoice: refunding });
    await s.h.dispatcher.drain();

    const stored = await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
    expect(stored).toMatchObject({
      statusCode: 7,
      grossCents: 10_050,
      paidCents: 10_050,
      amountMismatch: false,
    });
    expect(s.h.port.changes.map((c) => [c.current.code, c.current.orderPaymentStatus, c.alert])).toEqual([
      [5, 'captured', undefined],
      [7, 'captured', undefined],
    ]);
    expect(s.h.alerts).toEqual([
      {
        kind: 'captured_amount_changed',
        orderId: rec.orderId,
        invoiceRecordId: rec.id,
        message: expect.stringContaining('total 120.00 (stored 100.50)'),
      },
    ]);
    const noted = (await historyOf(s.ds, rec.id)).filter((h) => h.note?.startsWith('captured amount'));
    expect(noted.length).toBeGreaterThanOrEqual(2); // every report is kept; only the first raised

    // A payment reported lower (a refund may explain it) is no news: kept, no alert.
    const lower = { ...refunding, amounts: { ...refunding.amounts, paidCents: 5_000 } };
    await s.h.service.apply({ recordId: rec.id, code: 7, source: 'webhook', invoice: lower });
    expect(s.h.alerts).toHaveLength(1);
    expect((await s.ds.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).paidCents).toBe(10_050);
  });

  it('applies the same report sent 10 times at once exactly once', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.h.service.apply({ recordId: rec.id, code: 5, source: 'webhook' }).then((a) => a.result),
      ),
    );
    await s.h.dispatcher.drain();
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(results.filter((r) => !r.applied).every((r) => r.reason?.startsWith('unchanged'))).toBe(true);
    expect(await historyOf(s.ds, rec.id)).toHaveLength(10);
    expect(s.h.port.changes).toHaveLength(1);
    expect(s.h.busChanges).toHaveLength(1);
  });

  it('closes the changes of 20 invoices delivered at once together, each counted once', async () => {
    const recs = await Promise.all(Array.from({ length: 20 }, () => insertInvoiceRecord(s.ds)));
    const spy = jest.spyOn(s.ds.logger, 'logQuery');
    try {
      await Promise.all(
        recs.map((rec) => s.h.service.apply({ recordId: rec.id, code: 1, source: 'create' })),
      );
      await s.h.dispatcher.drain();
      const closes = spy.mock.calls.filter(([sql]) =>
        /^UPDATE "?invoice_payments_status_history"? SET .*"?notified_at"? = /.test(sql),
      );
      // better-sqlite3 answers within the tick, so on SQLite each close may go alone; PostgreSQL is a round trip.
      expect(closes.length).toBeGreaterThan(0);
      if (kind === 'postgres') expect(closes.length).toBeLessThan(20);
    } finally {
      spy.mockRestore();
    }
    for (const rec of recs) {
      const [row] = await historyOf(s.ds, rec.id);
      expect(row).toMatchObject({ notifyAttempts: 1, notifyError: null, notifyLockedUntil: null });
      expect(row.notifiedAt).toBeInstanceOf(Date);
    }
    expect(s.h.port.changes.filter((c) => recs.some((r) => r.id === c.invoiceRecordId))).toHaveLength(20);
  });

  it('retries a change the port refused, in order, and delivers each change once', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    s.h.port.down = true;
    await s.h.service.apply({ recordId: rec.id, code: 1, source: 'create' });
    await s.h.service.apply({ recordId: rec.id, code: 5, source: 'webhook' });
    // Refused once: held until its backoff (20 ms on the harness's clock) has passed.
    await waitFor(async () => (await historyOf(s.ds, rec.id))[0].notifyAttempts >= 1);
    const once = (await historyOf(s.ds, rec.id))[0];
    expect(once.notifyAttempts).toBe(1);
    expect(once.notifyLockedUntil?.getTime()).toBe(s.h.clock.now() + 20);
    // The backoff passes when the clock moves; the retry is refused again and backs off twice as long.
    s.h.clock.advance(20);
    s.h.dispatcher.deliver(rec.id);
    await waitFor(async () => (await historyOf(s.ds, rec.id))[0].notifyAttempts >= 2);
    const failing = await historyOf(s.ds, rec.id);
    expect(failing[0].notifyLockedUntil?.getTime()).toBe(s.h.clock.now() + 40);
    expect(failing.map((r) => r.notifiedAt)).toEqual([null, null]);
    expect(failing[0].notifyError).toBe('host database is down');
    // The change behind the failing one waits its turn.
    expect(failing[1].notifyAttempts).toBe(0);
    expect(s.h.busChanges).toHaveLength(0);

    s.h.port.down = false;
    s.h.clock.advance(40);
    s.h.dispatcher.deliver(rec.id);
    await waitFor(async () => (await historyOf(s.ds, rec.id)).every((r) => r.notifiedAt !== null));
    expect(s.h.port.changes.map((c) => c.current.code)).toEqual([1, 5]);
    expect(s.h.busChanges.map((c) => c.current.code)).toEqual([1, 5]);
    const delivered = await historyOf(s.ds, rec.id);
    expect(delivered[0].notifyAttempts).toBe(3);
    expect(delivered[0].notifyError).toBeNull();
    expect(delivered[1].notifyAttempts).toBe(1);
  });

  it('without a host port, notifies the bus only', async () => {
    const bare = harness(s.ds, false);
    const rec = await insertInvoiceRecord(s.ds);
    await bare.service.apply({ recordId: rec.id, code: 1, source: 'create' });
    await bare.dispatcher.drain();
    expect(bare.busChanges.map((c) => c.current.code)).toEqual([1]);
    expect((await historyOf(s.ds, rec.id))[0].notifiedAt).not.toBeNull();
    await bare.dispatcher.onModuleDestroy();
  });

  it('delivers changes left undelivered by a crashed instance when polled', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    const crashed = harness(s.ds);
    await crashed.dispatcher.onModuleDestroy(); // stopped before it could notify
    await crashed.service.apply({ recordId: rec.id, code: 1, source: 'create' });
    expect(crashed.port.changes).toHaveLength(0);

    await s.h.dispatcher.runOnce();
    await s.h.dispatcher.drain();
    expect(s.h.port.changes.map((c) => [c.invoiceRecordId, c.current.code])).toContainEqual([rec.id, 1]);
  });

  it('refuses a malformed report or an unknown record, naming the field, and writes nothing', async () => {
    const rec = await insertInvoiceRecord(s.ds);
    await expect(s.h.service.apply({ recordId: rec.id, code: 1.5, source: 'webhook' })).rejects.toThrow(
      /^code:/,
    );
    await expect(s.h.service.apply({ recordId: '', code: 1, source: 'webhook' })).rejects.toThrow(
      /^recordId:/,
    );
    await expect(
      s.h.service.apply({ recordId: rec.id, code: 1, source: 'elsewhere' as 'webhook' }),
    ).rejects.toThrow(/^source:/);
    await expect(
      s.h.service.apply({ recordId: 'no-such-record', code: 1, source: 'webhook' }),
    ).rejects.toBeInstanceOf(ReportedRecordNotFoundError);
    expect(await historyOf(s.ds, rec.id)).toHaveLength(0);
    expect(
      await s.ds.getRepository(InvoiceStatusHistory).countBy({ invoiceRecordId: 'no-such-record' }),
    ).toBe(0);
  });
});

// Several instances sharing one database is a PostgreSQL setup: SQLite is one process by design.
const describeOnPostgres = databaseKinds().includes('postgres') ? describe : () => undefined;

describeOnPostgres('InvoiceStatusService, two app instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  let second: DataSource;

  beforeAll(async () => {
    db = await openTestDatabase('postgres', { entities, synchronize: true, poolSize: 20 });
    second = await new DataSource({ ...db.options, synchronize: false }).initialize();
  });
  afterAll(async () => {
    await second.destroy();
    await db.destroy();
  });

  it('applies concurrent reports from both once each, ends at the furthest state, notifies each change once', async () => {
    // Both instances' ports write to one list, so it holds the real order of delivery across them.
    const delivered: PaymentStatusChange[] = [];
    const a = harness(db.dataSource, true, delivered);
    const b = harness(second, true, delivered);
    const records = await Promise.all(Array.from({ length: 20 }, () => insertInvoiceRecord(db.dataSource)));
    const life = [1, 2, 4, 5, 8, 9];
    const reports = records.flatMap((r) =>
      [...life, ...life].map((code, i) => ({ recordId: r.id, code, via: i % 2 ? a : b })),
    );
    reports.sort(() => Math.random() - 0.5);
    const results = await Promise.all(
      reports.map(({ via, ...r }) => via.service.apply({ ...r, source: 'webhook' }).then((a) => a.result)),
    );
    await a.dispatcher.runOnce();
    await b.dispatcher.runOnce();
    await waitFor(async () => {
      await Promise.all([a.dispatcher.drain(), b.dispatcher.drain()]);
      return (
        (await db.dataSource.getRepository(InvoiceStatusHistory).countBy({ notifiedAt: IsNull() })) === 0
      );
    });

    const applied = results.filter((r) => r.applied).length;
    expect(delivered).toHaveLength(applied);
    expect(new Set(delivered.map((c) => `${c.invoiceRecordId}:${c.current.code}`)).size).toBe(applied);
    for (const rec of records) {
      const stored = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
      expect(stored.statusCode).toBe(9);
      const seen = delivered.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code);
      expect(seen).toEqual([...seen].sort((x, y) => life.indexOf(x) - life.indexOf(y)));
      expect(seen[seen.length - 1]).toBe(9);
    }
    expect(await db.dataSource.getRepository(InvoiceStatusHistory).count()).toBe(reports.length);
    await a.dispatcher.onModuleDestroy();
    await b.dispatcher.onModuleDestroy();
  });
});
