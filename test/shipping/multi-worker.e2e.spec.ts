import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import type { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createOrder,
  openShippingDatabase,
  ShippingApp,
  ShippingHarness,
  startShippingApp,
  startShippingHarness,
  TRACKING_PATH,
  waitFor,
} from './support';

const JOBS = 50;

describeEachDatabase('shipping: many jobs, every one posted exactly once', (kind) => {
  // Several workers share one outbox on PostgreSQL; SQLite runs one worker.
  const instances = kind === 'postgres' ? 2 : 1;
  let db: TestDatabase;
  let h: ShippingHarness;
  const apps: ShippingApp[] = [];

  beforeAll(async () => {
    db = await openShippingDatabase(kind);
    h = await startShippingHarness();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await h?.close();
    await db?.destroy();
  });

  it(`${instances} worker instance(s) post each of ${JOBS} jobs exactly once`, async () => {
    const orders: Array<{ orderId: string; record: InvoiceRecord }> = [];
    for (let i = 0; i < JOBS; i++) orders.push(await createOrder(db, h));
    // Separate instances, as separate processes: each its own connection pool, worker and event bus. Small batches
    // and a little latency at the service keep each worker claiming while another is posting.
    for (let i = 0; i < instances; i++)
      apps.push(await startShippingApp(db, h, { batchSize: 3, pollIntervalMs: 10 }));
    h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, latencyMs: 5 });

    const code = (i: number) => `BR${String(i).padStart(9, '0')}BR`;
    const half = JOBS / 2;
    for (let i = 0; i < half; i++)
      await apps[i % instances].tracking.recordShipment({
        orderId: orders[i].orderId,
        trackingCode: code(i),
      });
    for (const a of apps) a.worker.start();
    // The rest arrive while both workers run, on either instance.
    for (let i = half; i < JOBS; i++)
      await apps[i % instances].tracking.recordShipment({
        orderId: orders[i].orderId,
        trackingCode: code(i),
      });

    const outbox = db.dataSource.getRepository(TrackingOutbox);
    await waitFor(
      async () => (await outbox.countBy({ status: 'sent' })) === JOBS,
      `${JOBS} rows sent`,
      60_000,
    );

    // At the service's door: every invoice got its code in exactly one request.
    const requests = h.trackingRequests();
    expect(requests).toHaveLength(JOBS);
    const perInvoice = new Map<string, string[]>();
    for (const r of requests) perInvoice.set(r.invoiceId, [...(perInvoice.get(r.invoiceId) ?? []), r.code]);
    orders.forEach(({ record }, i) => {
      expect(perInvoice.get(record.gatewayInvoiceId!)).toEqual([code(i)]);
      expect(h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking?.code).toBe(code(i));
    });
    // One TrackingPosted per job, from whichever instance posted it.
    const posted = apps.flatMap((a) => a.posted.map((e) => e.outboxId));
    expect(new Set(posted).size).toBe(JOBS);
    expect(posted).toHaveLength(JOBS);
    expect((await outbox.find()).every((r) => r.attempts === 1 && r.lockedBy === null)).toBe(true);
  });
});
