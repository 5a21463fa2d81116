import { WebhookInboxWaitingFor1763700015200 } from '../../migrations/1763700015200-WebhookInboxWaitingFor';
import { randomUUID } from 'node:crypto';
import { WebhookInbox1763700001000 } from '../../migrations/1763700001000-WebhookInbox';
import { LeasedRows } from '../../src/core/queue/leased-rows';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { webhookInboxRows } from '../../src/webhooks/webhook-inbox';
import { describeEachDatabase, openTestDatabase, type TestDatabase } from '../support/databases';
import { ManualClock } from '../support/clock';

/**
 * Two instances on one queue table, or two claims of one instance: a finishing write of a holder whose lease lapsed
 * and was taken by another lands nowhere; the other's lands. Rows of several leases finished together land only where
 * the lease is still the one their own claim wrote.
 */
describeEachDatabase('LeasedRows: a finishing write lands only under its own lease', (kind) => {
  let db: TestDatabase;
  /** A short lease, so a test outlives it at once. */
  const LAPSING_MS = 5;
  let n = 0;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [WebhookInboxEntry],
      migrations: [WebhookInbox1763700001000, WebhookInboxWaitingFor1763700015200],
    });
  });
  afterAll(() => db.destroy());

  /** The instances' one clock: a lease lapses when the test moves it, not after a wait. */
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock();
  });

  /** Instance `lapsing` leases for a few ms; the other for a minute. */
  const instance = (lapsing = false) =>
    webhookInboxRows(db.dataSource, () => (lapsing ? LAPSING_MS : 60_000), clock);
  /** Moves the clock past the leases of `rows` (a claim compares leases with the app's clock). */
  const lapse = (...rows: Array<WebhookInboxEntry | null>) => {
    for (const row of rows) {
      expect(row?.lockedUntil).toBeTruthy();
      clock.set(Math.max(clock.now(), (row?.lockedUntil?.getTime() ?? 0) + 1));
    }
  };

  const insert = async () => {
    const id = randomUUID();
    const received = new Date(Date.now() - 60_000 + n++);
    await db.dataSource.getRepository(WebhookInboxEntry).insert({
      id,
      dedupeKey: `delivery:${id}`,
      payload: '{}',
      state: 'pending',
      attempts: 0,
      nextAttemptAt: received,
      receivedAt: received,
    });
    return id;
  };
  const read = (id: string) => db.dataSource.getRepository(WebhookInboxEntry).findOneByOrFail({ id });

  /** `a` claimed `id`, its lease lapsed, `b` claimed it: the row is `b`'s. Both claims' rows. */
  const takenOver = async (
    a: LeasedRows<WebhookInboxEntry>,
    b: LeasedRows<WebhookInboxEntry>,
    id: string,
  ) => {
    const lapsed = await a.claim(id);
    expect(lapsed).not.toBeNull();
    lapse(lapsed);
    const taken = await b.claim(id);
    expect(taken).not.toBeNull();
    return { lapsed: lapsed as WebhookInboxEntry, taken: taken as WebhookInboxEntry };
  };

  type Row = WebhookInboxEntry;
  /** A lapsed holder's writes: the dead letter, the retry, the close of one row and of a batch. */
  const lateWrites: Array<[string, (a: LeasedRows<Row>, row: Row) => Promise<void>]> = [
    [
      'dead letter',
      (a, row) => a.finish(row, { state: 'dead', lastError: 'gave up', processedAt: new Date() }),
    ],
    ['retry', (a, row) => a.finish(row, { lastError: 'retry', nextAttemptAt: new Date(Date.now() + 1000) })],
    ['close (finishAll)', (a, row) => a.finishAll([row], { state: 'ignored', outcome: 'left alone' })],
    ['close (finishEach)', (a, row) => a.finishEach([{ row, outcome: 'applied' }], { state: 'processed' })],
  ];

  it.each(lateWrites)(
    "a lapsed holder's %s changes nothing; the new holder's close lands",
    async (_, write) => {
      const a = instance(true);
      const b = instance();
      const id = await insert();
      const { lapsed, taken: held } = await takenOver(a, b, id);
      const before = await read(id);

      await write(a, lapsed);
      expect(await read(id)).toEqual(before);

      await b.finish(held, { state: 'processed', outcome: 'applied', processedAt: new Date() });
      expect(await read(id)).toMatchObject({ state: 'processed', outcome: 'applied', lockedUntil: null });
    },
  );

  it.each(lateWrites)(
    "one instance's claim lapsed and taken by its own batch: the stale %s changes nothing; the batch's close lands",
    async (_, write) => {
      const a = instance(true);
      const id = await insert();
      // A delivery's single claim (processNow) outlives its lease in a slow lookup; the batch (claimDue) takes the row.
      const single = await a.claim(id);
      expect(single).not.toBeNull();
      lapse(single);
      const batch = (await a.claimDue(1000, 'o.received_at', undefined, 60_000)).find((row) => row.id === id);
      expect(batch).toBeDefined();
      // The row carries its claim's lease as the exact text written (ISO text, hydrated and written back the same).
      const raw = await db.dataSource
        .createQueryBuilder()
        .select('e.locked_until', 'text')
        .from(WebhookInboxEntry, 'e')
        .where('e.id = :id', { id })
        .getRawOne<{ text: string }>();
      expect(raw?.text).toBe(batch?.lockedUntil?.toISOString());
      const before = await read(id);

      await write(a, single as Row);
      expect(await read(id)).toEqual(before);

      await a.finishEach([{ row: batch as Row, outcome: 'applied' }], { state: 'processed' });
      expect(await read(id)).toMatchObject({ state: 'processed', outcome: 'applied', lockedUntil: null });
    },
  );

  const batchWrites: Array<[string, (a: LeasedRows<Row>, rows: Row[]) => Promise<void>]> = [
    [
      'finishEach',
      (a, rows) =>
        a.finishEach(
          rows.map((row) => ({ row, outcome: 'applied' })),
          { state: 'processed' },
        ),
    ],
    ['finishAll', (a, rows) => a.finishAll(rows, { state: 'dead', lastError: 'gave up' })],
  ];

  it.each(batchWrites)(
    'a batch claim taken over by another holder: its %s lands nowhere',
    async (_, write) => {
      const a = instance(true);
      const b = instance();
      const ids = [await insert(), await insert()];
      const lapsed = await a.claimDue(2, 'o.received_at');
      expect(lapsed.map((r) => r.id).sort()).toEqual([...ids].sort());
      lapse(...lapsed);
      const taken = await b.claimDue(2, 'o.received_at');
      expect(taken.map((r) => r.id).sort()).toEqual([...ids].sort());

      await write(a, lapsed);
      for (const id of ids) expect(await read(id)).toMatchObject({ state: 'pending', outcome: null });

      await b.finishAll(taken, { state: 'ignored', outcome: 'left alone' });
      for (const id of ids) expect(await read(id)).toMatchObject({ state: 'ignored', lockedUntil: null });
    },
  );

  it('rows of several leases finished together: only those still under their own lease land', async () => {
    for (const finishing of ['finishAll', 'finishEach'] as const) {
      const a = instance(true);
      const b = instance();
      const lost = await insert();
      const { lapsed } = await takenOver(a, b, lost);
      // Two more claims of `a`'s, each its own lease (a few ms apart), one of them lapsed but taken by no one.
      const own = await insert();
      const ownRow = await a.claim(own);
      expect(ownRow).not.toBeNull();
      lapse(ownRow);
      const fresh = await insert();
      const freshRow = await a.claim(fresh);
      expect(freshRow).not.toBeNull();
      // Never claimed (kicked by nobody, say an admin's requeue): only open is asked of it.
      const unclaimed = await insert();

      const rows = [lapsed, ownRow as Row, freshRow as Row, { id: unclaimed }];
      if (finishing === 'finishAll') await a.finishAll(rows, { state: 'ignored', outcome: 'batch' });
      else
        await a.finishEach(
          rows.map((row) => ({ row, outcome: 'batch' })),
          { state: 'ignored' },
        );

      expect(await read(lost)).toMatchObject({ state: 'pending', outcome: null });
      expect((await read(lost)).lockedUntil).not.toBeNull();
      for (const id of [own, fresh, unclaimed])
        expect(await read(id)).toMatchObject({ state: 'ignored', outcome: 'batch', lockedUntil: null });
    }
  });
});
