import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createOrder,
  openShippingDatabase,
  ShippingApp,
  ShippingHarness,
  startShippingApp,
  startShippingHarness,
  TOKEN,
  TRACKING_PATH,
  waitFor,
} from './support';

describeEachDatabase('shipping: outages, restarts and failures', (kind) => {
  let db: TestDatabase;
  let h: ShippingHarness;
  const apps: ShippingApp[] = [];

  beforeAll(async () => {
    db = await openShippingDatabase(kind);
    h = await startShippingHarness();
  });
  afterEach(async () => {
    while (apps.length) await apps.pop()!.close();
    h.sandbox.controls.clearFaults();
  });
  afterAll(async () => {
    await h?.close();
    await db?.destroy();
  });

  async function app(
    ...args: Parameters<typeof startShippingApp> extends [unknown, unknown, ...infer R] ? R : never
  ) {
    const started = await startShippingApp(db, h, ...args);
    apps.push(started);
    return started;
  }
  const row = (orderId: string) => db.dataSource.getRepository(TrackingOutbox).findOneByOrFail({ orderId });
  const requestsFor = (invoiceId: string) => h.trackingRequests().filter((r) => r.invoiceId === invoiceId);
  const serviceDown = () => h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, status: 503 });

  it('the service is down, then back up: the worker retries with backoff and the code arrives once', async () => {
    const a = await app();
    const { orderId, record } = await createOrder(db, h);
    serviceDown();
    a.worker.start();
    await a.tracking.recordShipment({ orderId, trackingCode: 'BR100000001BR' });
    await waitFor(async () => (await row(orderId)).attempts >= 3, 'three failed attempts');
    const waiting = await row(orderId);
    expect(waiting).toMatchObject({ status: 'pending', sentAt: null });
    expect(waiting.lastError).toMatch(/503|unavailable/i);
    expect(h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toBeNull();
    expect(a.posted).toEqual([]);

    h.sandbox.controls.clearFaults();
    await waitFor(() => a.posted.length === 1, 'TrackingPosted');
    const sent = await row(orderId);
    expect(sent).toMatchObject({ status: 'sent', lastError: null });
    expect(h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'BR100000001BR',
    });
    // One request per attempt; all but the last were refused by the outage.
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(sent.attempts);
    expect(a.posted[0]).toMatchObject({ orderId, attempts: sent.attempts });
    expect(
      // A 5xx to a tracking post is an unknown outcome (it may have been attached); posting again is harmless (A9).
      h.logger.lines.some((l) => l.startsWith('warn') && l.includes('attempt 1 failed (outcome_unknown)')),
    ).toBe(true);
    expect(h.logger.lines.join('\n')).not.toContain(TOKEN);
  });

  it('the worker is stopped mid-retry and a new instance started: the code is delivered once', async () => {
    const first = await app();
    const { orderId, record } = await createOrder(db, h);
    serviceDown();
    first.worker.start();
    await first.tracking.recordShipment({ orderId, trackingCode: 'BR200000002BR' });
    await waitFor(async () => (await row(orderId)).attempts >= 2, 'two failed attempts');
    await apps.pop()!.close(); // the process goes away
    const left = await row(orderId);
    expect(left).toMatchObject({ status: 'pending', lockedBy: null });
    const failedSoFar = requestsFor(record.gatewayInvoiceId!).length;
    expect(failedSoFar).toBe(left.attempts);

    h.sandbox.controls.clearFaults();
    const second = await app();
    second.worker.start();
    await waitFor(() => second.posted.length === 1, 'TrackingPosted after the restart');
    expect(await row(orderId)).toMatchObject({ status: 'sent', attempts: failedSoFar + 1 });
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(failedSoFar + 1);
    expect(h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'BR200000002BR',
    });
    expect(first.posted).toEqual([]);
  });

  it('stopping mid-round finishes the post in flight and hands the rest back; the next instance sends those', async () => {
    const first = await app();
    const orders = [await createOrder(db, h), await createOrder(db, h), await createOrder(db, h)];
    for (const [i, o] of orders.entries()) {
      await first.tracking.recordShipment({ orderId: o.orderId, trackingCode: `BR30000000${i}BR` });
    }
    h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, latencyMs: 300 });
    first.worker.start();
    await waitFor(
      () => h.trackingRequests().some((r) => r.code === 'BR300000000BR'),
      'the first post to leave',
    );
    await apps.pop()!.close();
    // The post in flight completed and was recorded; the two rows the round had not reached were handed back
    // without counting an attempt.
    expect(first.posted.map((e) => e.code)).toEqual(['BR300000000BR']);
    const states = await Promise.all(orders.map((o) => row(o.orderId)));
    expect(states.map((r) => [r.status, r.attempts, r.lockedBy])).toEqual([
      ['sent', 1, null],
      ['pending', 0, null],
      ['pending', 0, null],
    ]);

    h.sandbox.controls.clearFaults();
    const second = await app();
    expect(await second.worker.runOnce()).toMatchObject({ claimed: 2, sent: 2 });
    for (const o of orders) expect(requestsFor(o.record.gatewayInvoiceId!)).toHaveLength(1);
  });

  it('a worker that dies holding a row loses it when its claim lapses; another posts it, once', async () => {
    // The first worker's post hangs (as if its process froze) and its claim is short.
    const frozen = await app({ leaseMs: 200 }, { timeouts: { defaultMs: 2000 } });
    const { orderId, record } = await createOrder(db, h);
    h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, hang: true, times: 1 });
    await frozen.tracking.recordShipment({ orderId, trackingCode: 'BR400000004BR' });
    const frozenRound = frozen.worker.runOnce();
    await waitFor(() => requestsFor(record.gatewayInvoiceId!).length === 1, 'the first post to hang');

    const other = await app();
    await waitFor(async () => (await other.worker.runOnce()).sent === 1, 'the row to be taken over and sent');
    expect(h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'BR400000004BR',
    });
    // The frozen worker wakes up (its request times out) and finds the row is no longer its to settle.
    expect(await frozenRound).toMatchObject({ claimed: 1, lost: 1, sent: 0, failed: 0 });
    expect(await row(orderId)).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(other.posted).toHaveLength(1);
    expect([...frozen.posted, ...frozen.failed]).toEqual([]);
  });

  it('after maxAttempts the row fails and TrackingFailed tells the host; recording it again retries', async () => {
    const a = await app({ maxAttempts: 3 });
    const { orderId, record } = await createOrder(db, h);
    serviceDown();
    a.worker.start();
    await a.tracking.recordShipment({ orderId, trackingCode: 'BR500000005BR' });
    await waitFor(() => a.failed.length === 1, 'TrackingFailed');
    expect(a.failed[0]).toMatchObject({
      orderId,
      code: 'BR500000005BR',
      errorKind: 'outcome_unknown',
      attempts: 3,
      invoiceRecordId: record.id,
    });
    expect(a.failed[0].error).not.toContain(TOKEN);
    expect(await row(orderId)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(3);
    expect(h.logger.lines.some((l) => l.startsWith('error') && l.includes('failed after 3 attempt(s)'))).toBe(
      true,
    );

    h.sandbox.controls.clearFaults();
    expect(await a.tracking.recordShipment({ orderId, trackingCode: 'BR500000005BR' })).toMatchObject({
      outcome: 'requeued',
    });
    await waitFor(() => a.posted.length === 1, 'TrackingPosted');
    expect(await row(orderId)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a permanent refusal fails at once: the invoice was refunded before the code went out (409)', async () => {
    const a = await app();
    const { orderId, record } = await createOrder(db, h);
    await a.tracking.recordShipment({ orderId, trackingCode: 'BR600000006BR' });
    await h.sandbox.controls.setStatus(record.gatewayId!, 9);
    expect(await a.worker.runOnce()).toMatchObject({ claimed: 1, failed: 1 });
    expect(a.failed).toEqual([
      expect.objectContaining({ orderId, errorKind: 'state_conflict', attempts: 1 }),
    ]);
    expect(await row(orderId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastErrorKind: 'state_conflict',
    });
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(1);
    // Failed for good: a person must act, so it is an alert too (kept in the alerts table for the admin page).
    expect(a.alerts).toEqual([
      expect.objectContaining({ kind: 'tracking_failed', orderId, invoiceRecordId: record.id }),
    ]);
  });
});
