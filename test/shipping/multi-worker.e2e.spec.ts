import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import type { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { describeEachDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { openShippingScene, ShippingApp, TRACKING_PATH } from './support';

const JOBS = 50;

describeEachDatabase('shipping: many jobs, every one posted exactly once', (kind) => {
  // Several workers share one outbox on PostgreSQL; SQLite runs one worker.
  const instances = kind === 'postgres' ? 2 : 1;
  const scene = openShippingScene(kind);
  const apps: ShippingApp[] = [];

  it(`${instances} worker instance(s) post each of ${JOBS} jobs exactly once`, async () => {
    const orders: Array<{ orderId: string; record: InvoiceRecord }> = [];
    for (let i = 0; i < JOBS; i++) orders.push(await scene.order());
    // Separate instances, as separate processes: each its own connection pool, worker and event bus. Small batches
    // and a little latency at the service keep each worker claiming while another is posting.
    for (let i = 0; i < instances; i++) apps.push(await scene.start({ batchSize: 3, pollIntervalMs: 10 }));
    scene.h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, latencyMs: 5 });

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

    const outbox = scene.db.dataSource.getRepository(TrackingOutbox);
    await waitFor(
      async () => (await outbox.countBy({ status: 'sent' })) === JOBS,
      60_000,
      `${JOBS} rows sent`,
    );

    // At the service's door: every invoice got its code in exactly one request.
    const requests = scene.h.trackingRequests();
    expect(requests).toHaveLength(JOBS);
    const perInvoice = new Map<string, string[]>();
    for (const r of requests) perInvoice.set(r.invoiceId, [...(perInvoice.get(r.invoiceId) ?? []), r.code]);
    orders.forEach(({ record }, i) => {
      expect(perInvoice.get(record.gatewayInvoiceId!)).toEqual([code(i)]);
      expect(scene.h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking?.code).toBe(code(i));
    });
    // One TrackingPosted per job, from whichever instance posted it.
    const posted = apps.flatMap((a) => a.posted.map((e) => e.outboxId));
    expect(new Set(posted).size).toBe(JOBS);
    expect(posted).toHaveLength(JOBS);
    expect((await outbox.find()).every((r) => r.attempts === 1 && r.lockedBy === null)).toBe(true);
  });
});
