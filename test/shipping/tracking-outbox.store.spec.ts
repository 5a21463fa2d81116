import { DataSource, Repository } from 'typeorm';
import { systemClock } from '../../src/domain/clock';
import { TrackingOutboxStore } from '../../src/shipping/tracking-outbox.store';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { openShippingDatabase, outboxRow } from './support';

const LEASE = 60_000;

describeEachDatabase('TrackingOutboxStore', (kind) => {
  let db: TestDatabase;
  let outbox: Repository<TrackingOutbox>;
  let store: TrackingOutboxStore;

  beforeAll(async () => {
    db = await openShippingDatabase(kind);
    outbox = db.dataSource.getRepository(TrackingOutbox);
    store = new TrackingOutboxStore(db.dataSource, systemClock);
  });
  afterAll(async () => db.destroy());
  beforeEach(async () => outbox.clear());

  // One by one: TypeORM's multi-row insert on SQLite reads generated values back by rowid and can mix the
  // objects up.
  async function insertAll(rows: TrackingOutbox[]): Promise<void> {
    for (const r of rows) await outbox.insert(r);
  }

  it('takes its rows from the claim statement itself, in the order they were due (no read-back by holder)', async () => {
    const at = (s: number) => new Date(Date.now() - s * 1000);
    const rows = [
      outboxRow({ nextAttemptAt: at(5) }),
      outboxRow({ nextAttemptAt: at(50) }),
      outboxRow({ nextAttemptAt: at(20) }),
    ];
    await insertAll(rows);
    const statements: string[] = [];
    const create = db.dataSource.createQueryRunner.bind(db.dataSource);
    const spy = jest.spyOn(db.dataSource, 'createQueryRunner').mockImplementation((mode) => {
      const runner = create(mode);
      const query = runner.query.bind(runner) as (sql: string, ...rest: unknown[]) => Promise<unknown>;
      (runner as { query: unknown }).query = (sql: string, ...rest: unknown[]) => {
        statements.push(sql);
        return query(sql, ...rest);
      };
      return runner;
    });
    try {
      const claimed = await store.claim('w1#1', 10, LEASE);
      expect(claimed.map((r) => r.id)).toEqual([rows[1].id, rows[2].id, rows[0].id]);
      expect(claimed.every((r) => r.lockedBy === 'w1#1' && r.attempts === 1)).toBe(true);
    } finally {
      spy.mockRestore();
    }
    expect(statements.filter((sql) => /^\s*SELECT/i.test(sql))).toEqual([]);
    expect(statements.filter((sql) => /RETURNING/i.test(sql))).toHaveLength(1);
  });

  it('deletes sent rows past the retention a batch at a time, and nothing else', async () => {
    const old = new Date(Date.now() - 40 * 86_400_000);
    const sent = Array.from({ length: 1_003 }, (_, i) =>
      outboxRow({ status: 'sent', code: `OLD${i}`, sentAt: old, recordedAt: old }),
    );
    for (let i = 0; i < sent.length; i += 200) await outbox.insert(sent.slice(i, i + 200));
    const kept = [
      outboxRow({ status: 'sent', sentAt: new Date(Date.now() - 86_400_000) }),
      outboxRow({ status: 'failed', recordedAt: old }),
      outboxRow({ status: 'pending', recordedAt: old }),
      outboxRow({ status: 'superseded', recordedAt: old }),
    ];
    await insertAll(kept);
    const retention = 30 * 86_400_000;
    // Stopped after its first batch (the app shutting down): 500 rows, the rest for the next purge.
    let checks = 0;
    expect(await store.purgeSent(retention, () => checks++ > 0)).toBe(500);
    expect(await store.purgeSent(retention, () => false)).toBe(503);
    expect((await outbox.find()).map((r) => r.id).sort()).toEqual(kept.map((r) => r.id).sort());
  });

  it('claims due pending rows only, counts the attempt and holds them for the lease', async () => {
    const due = outboxRow();
    await insertAll([
      due,
      outboxRow({ nextAttemptAt: new Date(Date.now() + 60_000) }),
      outboxRow({ status: 'sent' }),
      outboxRow({ status: 'failed' }),
      outboxRow({ status: 'superseded' }),
    ]);
    const claimed = await store.claim('w1#1', 10, LEASE);
    expect(claimed.map((r) => r.id)).toEqual([due.id]);
    expect(claimed[0]).toMatchObject({ attempts: 1, lockedBy: 'w1#1' });
    expect(claimed[0].lockedUntil!.getTime()).toBeGreaterThan(Date.now() + LEASE / 2);
    // Held: nobody else gets it while the lease runs.
    expect(await store.claim('w2#1', 10, LEASE)).toEqual([]);
  });

  it('lets another worker take a row whose claim lapsed (the holder died), counting a new attempt', async () => {
    const r = outboxRow({ attempts: 1, lockedBy: 'dead#1', lockedUntil: new Date(Date.now() - 1) });
    await outbox.insert(r);
    const claimed = await store.claim('w2#1', 10, LEASE);
    expect(claimed.map((c) => [c.id, c.attempts, c.lockedBy])).toEqual([[r.id, 2, 'w2#1']]);
    // The dead worker's late write is refused: the row is no longer its claim's.
    expect(await store.writeHeld(r, 'dead#1', { status: 'sent' })).toBe(false);
    expect(await store.writeHeld(r, 'w2#1', { status: 'sent', sentAt: new Date() })).toBe(true);
    expect(await outbox.findOneByOrFail({ id: r.id })).toMatchObject({ status: 'sent', lockedBy: null });
  });

  it('does not claim a row while another row of the same order is held, and respects the batch size', async () => {
    const held = outboxRow({
      orderId: 'o-1',
      code: 'A1',
      lockedBy: 'w1#1',
      lockedUntil: new Date(Date.now() + LEASE),
    });
    const waiting = outboxRow({ orderId: 'o-1', code: 'A2' });
    const others = [outboxRow(), outboxRow(), outboxRow()];
    await insertAll([held, waiting, ...others]);
    const first = await store.claim('w2#1', 2, LEASE);
    const second = await store.claim('w2#2', 10, LEASE);
    expect(first).toHaveLength(2);
    expect([...first, ...second].map((r) => r.id).sort()).toEqual(others.map((r) => r.id).sort());
  });

  it('hands unreached rows back without counting the attempt', async () => {
    const r = outboxRow({ attempts: 3 });
    await outbox.insert(r);
    const [claimed] = await store.claim('w1#1', 1, LEASE);
    expect(claimed.attempts).toBe(4);
    await store.release([claimed], 'w1#1');
    expect(await outbox.findOneByOrFail({ id: r.id })).toMatchObject({
      attempts: 3,
      lockedBy: null,
      lockedUntil: null,
    });
  });

  it('sees a newer code recorded for the same order', async () => {
    const t = Date.now();
    const older = outboxRow({ orderId: 'o-2', code: 'OLD', recordedAt: new Date(t - 10) });
    const newer = outboxRow({ orderId: 'o-2', code: 'NEW', recordedAt: new Date(t - 9) });
    await insertAll([older, newer]);
    expect(await store.hasNewerCode(older)).toBe(true);
    expect(await store.hasNewerCode(newer)).toBe(false);
    // Recorded at the same instant by two processes: exactly one of them counts as the latest.
    const at = new Date(t - 5);
    const [x, y] = [
      outboxRow({ orderId: 'o-3', code: 'X', recordedAt: at }),
      outboxRow({ orderId: 'o-3', code: 'Y', recordedAt: at }),
    ];
    await insertAll([x, y]);
    expect([await store.hasNewerCode(x), await store.hasNewerCode(y)].sort()).toEqual([false, true]);
  });

  if (kind === 'postgres') {
    it('gives each row to exactly one of many workers claiming at once (FOR UPDATE SKIP LOCKED)', async () => {
      const rows = Array.from({ length: 200 }, () => outboxRow());
      await insertAll(rows);
      // Separate connection pools: as separate processes would.
      const sources = await Promise.all(
        Array.from({ length: 4 }, () => new DataSource({ ...db.options, migrationsRun: false }).initialize()),
      );
      try {
        const claimedBy = new Map<string, string[]>();
        await Promise.all(
          sources.flatMap((source, w) =>
            // Several claimers per pool too, so claims really overlap.
            [0, 1, 2].map(async (c) => {
              const s = new TrackingOutboxStore(source, systemClock);
              for (let n = 0; ; n++) {
                const claim = `w${w}.${c}#${n}`;
                const got = await s.claim(claim, 3, LEASE);
                if (got.length === 0) break;
                for (const g of got) claimedBy.set(g.id, [...(claimedBy.get(g.id) ?? []), claim]);
              }
            }),
          ),
        );
        expect([...claimedBy.keys()].sort()).toEqual(rows.map((r) => r.id).sort());
        expect([...claimedBy.values()].filter((claims) => claims.length !== 1)).toEqual([]);
        const attempts = await outbox.find();
        expect(attempts.every((r) => r.attempts === 1)).toBe(true);
      } finally {
        await Promise.all(sources.map((s) => s.destroy()));
      }
    });
  }
});
