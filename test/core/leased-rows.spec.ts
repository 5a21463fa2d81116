import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebhookInbox1763700001000 } from '../../migrations/1763700001000-WebhookInbox';
import { LeasedRows } from '../../src/core/queue/leased-rows';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox.entity';
import { webhookInboxRows } from '../../src/webhooks/webhook-inbox.rows';
import { describeEachDatabase, openTestDatabase, type TestDatabase } from '../support/databases';

/**
 * Two instances on one queue table: a finishing write of a holder whose lease lapsed and was taken by another lands
 * nowhere; the other's lands. Rows of several leases finished together land only where the lease is still the one
 * this instance's claim wrote.
 */
describeEachDatabase('LeasedRows: a finishing write lands only under its own lease', (kind) => {
  let db: TestDatabase;
  /** A short lease, so a test outlives it at once. */
  const LAPSING_MS = 5;
  let n = 0;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [WebhookInboxEntry],
      migrations: [WebhookInbox1763700001000],
    });
  });
  afterAll(() => db.destroy());

  /** Instance `lapsing` leases for a few ms; the other for a minute. */
  const instance = (lapsing = false) =>
    webhookInboxRows(db.dataSource, () => (lapsing ? LAPSING_MS : 60_000));
  const lapse = () => sleep(LAPSING_MS * 4);

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

  /** `a` claimed `id`, its lease lapsed, `b` claimed it: the row is `b`'s. */
  const takenOver = async (
    a: LeasedRows<WebhookInboxEntry>,
    b: LeasedRows<WebhookInboxEntry>,
    id: string,
  ) => {
    expect(await a.claim(id, true)).not.toBeNull();
    await lapse();
    const taken = await b.claim(id, true);
    expect(taken).not.toBeNull();
    return taken as WebhookInboxEntry;
  };

  /** A lapsed holder's writes: the dead letter, the retry, the close of one row and of a batch. */
  const lateWrites: Array<[string, (a: LeasedRows<WebhookInboxEntry>, id: string) => Promise<void>]> = [
    [
      'dead letter',
      (a, id) => a.finish({ id }, { state: 'dead', lastError: 'gave up', processedAt: new Date() }),
    ],
    [
      'retry',
      (a, id) => a.finish({ id }, { lastError: 'retry', nextAttemptAt: new Date(Date.now() + 1000) }),
    ],
    ['close (finishAll)', (a, id) => a.finishAll([id], { state: 'ignored', outcome: 'left alone' })],
    ['close (finishEach)', (a, id) => a.finishEach([{ id, outcome: 'applied' }], { state: 'processed' })],
  ];

  it.each(lateWrites)(
    "a lapsed holder's %s changes nothing; the new holder's close lands",
    async (_, write) => {
      const a = instance(true);
      const b = instance();
      const id = await insert();
      const held = await takenOver(a, b, id);
      const before = await read(id);

      await write(a, id);
      expect(await read(id)).toEqual(before);

      await b.finish(held, { state: 'processed', outcome: 'applied', processedAt: new Date() });
      expect(await read(id)).toMatchObject({ state: 'processed', outcome: 'applied', lockedUntil: null });
    },
  );

  const batchWrites: Array<[string, (a: LeasedRows<WebhookInboxEntry>, ids: string[]) => Promise<void>]> = [
    [
      'finishEach',
      (a, ids) =>
        a.finishEach(
          ids.map((id) => ({ id, outcome: 'applied' })),
          { state: 'processed' },
        ),
    ],
    ['finishAll', (a, ids) => a.finishAll(ids, { state: 'dead', lastError: 'gave up' })],
  ];

  it.each(batchWrites)(
    'a batch claim taken over by another holder: its %s lands nowhere',
    async (_, write) => {
      const a = instance(true);
      const b = instance();
      const ids = [await insert(), await insert()];
      expect((await a.claimDue(2, 'o.received_at')).map((r) => r.id).sort()).toEqual([...ids].sort());
      await lapse();
      expect((await b.claimDue(2, 'o.received_at')).map((r) => r.id).sort()).toEqual([...ids].sort());

      await write(a, ids);
      for (const id of ids) expect(await read(id)).toMatchObject({ state: 'pending', outcome: null });

      await b.finishAll(ids, { state: 'ignored', outcome: 'left alone' });
      for (const id of ids) expect(await read(id)).toMatchObject({ state: 'ignored', lockedUntil: null });
    },
  );

  it('rows of several leases finished together: only those still under their own lease land', async () => {
    for (const finishing of ['finishAll', 'finishEach'] as const) {
      const a = instance(true);
      const b = instance();
      const lost = await insert();
      await takenOver(a, b, lost);
      // Two more claims of `a`'s, each its own lease (a few ms apart), one of them lapsed but taken by no one.
      const own = await insert();
      expect(await a.claim(own, true)).not.toBeNull();
      await lapse();
      const fresh = await insert();
      expect(await a.claim(fresh, true)).not.toBeNull();
      // Never claimed here (kicked by nobody, say an admin's requeue): only open is asked of it.
      const unclaimed = await insert();

      const ids = [lost, own, fresh, unclaimed];
      if (finishing === 'finishAll') await a.finishAll(ids, { state: 'ignored', outcome: 'batch' });
      else
        await a.finishEach(
          ids.map((id) => ({ id, outcome: 'batch' })),
          { state: 'ignored' },
        );

      expect(await read(lost)).toMatchObject({ state: 'pending', outcome: null });
      expect((await read(lost)).lockedUntil).not.toBeNull();
      for (const id of [own, fresh, unclaimed])
        expect(await read(id)).toMatchObject({ state: 'ignored', outcome: 'batch', lockedUntil: null });
    }
  });
});
