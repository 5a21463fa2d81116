import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { describeEachDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { openShippingScene, TOKEN, TRACKING_PATH } from './support';

describeEachDatabase('shipping: outages, restarts and failures', (kind) => {
  const scene = openShippingScene(kind);
  afterEach(async () => {
    await scene.stopApps();
    scene.h.sandbox.controls.clearFaults();
  });
  const row = (orderId: string) =>
    scene.db.dataSource.getRepository(TrackingOutbox).findOneByOrFail({ orderId });
  const requestsFor = (invoiceId: string) =>
    scene.h.trackingRequests().filter((r) => r.invoiceId === invoiceId);
  const serviceDown = () =>
    scene.h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, status: 503 });

  it('the service is down, then back up: the worker retries with backoff and the code arrives once', async () => {
    const a = await scene.start();
    const { orderId, record } = await scene.order();
    serviceDown();
    a.worker.start();
    await a.tracking.recordShipment({ orderId, trackingCode: 'BR100000001BR' });
    await waitFor(async () => (await row(orderId)).attempts >= 3, 15_000, 'three failed attempts');
    const waiting = await row(orderId);
    expect(waiting).toMatchObject({ status: 'pending', sentAt: null });
    expect(waiting.lastError).toMatch(/503|unavailable/i);
    expect(scene.h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toBeNull();
    expect(a.posted).toEqual([]);

    scene.h.sandbox.controls.clearFaults();
    await waitFor(() => a.posted.length === 1, 15_000, 'TrackingPosted');
    const sent = await row(orderId);
    expect(sent).toMatchObject({ status: 'sent', lastError: null });
    expect(scene.h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'BR100000001BR',
    });
    // One request per attempt; all but the last were refused by the outage.
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(sent.attempts);
    expect(a.posted[0]).toMatchObject({ orderId, attempts: sent.attempts });
    expect(
      // A 5xx to a tracking post is an unknown outcome (it may have been attached); posting again is harmless (A9).
      scene.h.logger.lines.some(
        (l) => l.startsWith('warn') && l.includes('attempt 1 failed (outcome_unknown)'),
      ),
    ).toBe(true);
    expect(scene.h.logger.lines.join('\n')).not.toContain(TOKEN);
  });

  it('the worker is stopped mid-retry and a new instance started: the code is delivered once', async () => {
    const first = await scene.start();
    const { orderId, record } = await scene.order();
    serviceDown();
    first.worker.start();
    await first.tracking.recordShipment({ orderId, trackingCode: 'BR200000002BR' });
    await waitFor(async () => (await row(orderId)).attempts >= 2, 15_000, 'two failed attempts');
    await first.close(); // the process goes away
    const left = await row(orderId);
    expect(left).toMatchObject({ status: 'pending', lockedBy: null });
    const failedSoFar = requestsFor(record.gatewayInvoiceId!).length;
    expect(failedSoFar).toBe(left.attempts);

    scene.h.sandbox.controls.clearFaults();
    const second = await scene.start();
    second.worker.start();
    await waitFor(() => second.posted.length === 1, 15_000, 'TrackingPosted after the restart');
    expect(await row(orderId)).toMatchObject({ status: 'sent', attempts: failedSoFar + 1 });
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(failedSoFar + 1);
    expect(scene.h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'BR200000002BR',
    });
    expect(first.posted).toEqual([]);
  });

  it('stopping mid-round finishes the post in flight and hands the rest back; the next instance sends those', async () => {
    const first = await scene.start();
    const orders = [await scene.order(), await scene.order(), await scene.order()];
    for (const [i, o] of orders.entries()) {
      await first.tracking.recordShipment({ orderId: o.orderId, trackingCode: `BR30000000${i}BR` });
    }
    scene.h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, latencyMs: 300 });
    first.worker.start();
    await waitFor(
      () => scene.h.trackingRequests().some((r) => r.code === 'BR300000000BR'),
      15_000,
      'the first post to leave',
    );
    await first.close();
    // The post in flight completed and was recorded; the two rows the round had not reached were handed back
    // without counting an attempt.
    expect(first.posted.map((e) => e.code)).toEqual(['BR300000000BR']);
    const states = await Promise.all(orders.map((o) => row(o.orderId)));
    expect(states.map((r) => [r.status, r.attempts, r.lockedBy])).toEqual([
      ['sent', 1, null],
      ['pending', 0, null],
      ['pending', 0, null],
    ]);

    scene.h.sandbox.controls.clearFaults();
    const second = await scene.start();
    expect(await second.worker.runOnce()).toMatchObject({ claimed: 2, sent: 2 });
    for (const o of orders) expect(requestsFor(o.record.gatewayInvoiceId!)).toHaveLength(1);
  });

  it('a worker that dies holding a row loses it when its claim lapses; another posts it, once', async () => {
    // The first worker's post hangs (as if its process froze) and its claim is short.
    const frozen = await scene.start({ leaseMs: 200 }, { timeouts: { defaultMs: 2000 } });
    const { orderId, record } = await scene.order();
    scene.h.sandbox.controls.addFault({ method: 'POST', path: TRACKING_PATH, hang: true, times: 1 });
    await frozen.tracking.recordShipment({ orderId, trackingCode: 'BR400000004BR' });
    const frozenRound = frozen.worker.runOnce();
    await waitFor(() => requestsFor(record.gatewayInvoiceId!).length === 1, 15_000, 'the first post to hang');

    const other = await scene.start();
    await waitFor(
      async () => (await other.worker.runOnce()).sent === 1,
      15_000,
      'the row to be taken over and sent',
    );
    expect(scene.h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'BR400000004BR',
    });
    // The frozen worker wakes up (its request times out) and finds the row is no longer its to settle.
    expect(await frozenRound).toMatchObject({ claimed: 1, lost: 1, sent: 0, failed: 0 });
    expect(await row(orderId)).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(other.posted).toHaveLength(1);
    expect([...frozen.posted, ...frozen.failed]).toEqual([]);
  });

  it('after maxAttempts the row fails and TrackingFailed tells the host; recording it again retries', async () => {
    const a = await scene.start({ maxAttempts: 3 });
    const { orderId, record } = await scene.order();
    serviceDown();
    a.worker.start();
    await a.tracking.recordShipment({ orderId, trackingCode: 'BR500000005BR' });
    await waitFor(() => a.failed.length === 1, 15_000, 'TrackingFailed');
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
    expect(
      scene.h.logger.lines.some((l) => l.startsWith('error') && l.includes('failed after 3 attempt(s)')),
    ).toBe(true);

    scene.h.sandbox.controls.clearFaults();
    expect(await a.tracking.recordShipment({ orderId, trackingCode: 'BR500000005BR' })).toMatchObject({
      outcome: 'requeued',
    });
    await waitFor(() => a.posted.length === 1, 15_000, 'TrackingPosted');
    expect(await row(orderId)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a permanent refusal fails at once: the invoice was refunded before the code went out (409)', async () => {
    const a = await scene.start();
    const { orderId, record } = await scene.order();
    await a.tracking.recordShipment({ orderId, trackingCode: 'BR600000006BR' });
    await scene.h.sandbox.controls.setStatus(record.gatewayId!, 9);
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
