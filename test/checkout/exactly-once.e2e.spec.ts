import { DataSource } from 'typeorm';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { CheckoutApp, checkout, makeOrder, openCheckoutDatabase, startCheckoutApp } from './support';

/**
 * 50 concurrent checkouts of one order, spread over two app instances, each with its own creation service (so the
 * in-process fast path cannot hide a broken database guard): the unique `open_order_id` claim must let exactly one
 * create request reach the service, and every caller must get the same invoice. On PostgreSQL each instance has its
 * own connection pool (two processes as far as the database can tell); SQLite serializes writers on one
 * connection, and one app per SQLite file is the supported set-up (the status path assumes it too), so there both
 * instances share the DataSource.
 */
describeEachDatabase('exactly one invoice per order under concurrency', (kind) => {
  let db: TestDatabase;
  let second: DataSource;
  let sandbox: SandboxServer;
  let shops: CheckoutApp[];

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind, 30);
    second = kind === 'postgres' ? await new DataSource(db.options).initialize() : db.dataSource;
    sandbox = await startSandbox();
    shops = [
      await startCheckoutApp(db, sandbox),
      await startCheckoutApp({ ...db, dataSource: second }, sandbox),
    ];
  });
  afterAll(async () => {
    for (const shop of shops ?? []) await shop.close();
    if (kind === 'postgres' && second?.isInitialized) await second.destroy();
    await sandbox?.close();
    await db?.destroy();
  });

  afterEach(() => sandbox.controls.clearFaults());

  it('50 concurrent initiatePayment calls for one order: one create request, the same invoice for all', async () => {
    // A slow service widens the race: every caller arrives while the first creation is in flight.
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', latencyMs: 300 });
    const order = makeOrder();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => shops[i % 2].provider.initiatePayment(checkout(order, 'pix'))),
    );

    const ids = new Set(results.map((r) => r.id));
    expect(ids.size).toBe(1);
    expect(new Set(results.map((r) => r.data.gatewayId)).size).toBe(1);
    expect(results.every((r) => r.data.pix?.payload && r.data.creationState === 'created')).toBe(true);
    expect(await shops[0].invoicesAtService(order.id)).toBe(1);
    const records = await shops[0].records(order.id);
    expect(records).toHaveLength(1);
    expect(records[0].openOrderId).toBe(order.id);

    // The host hears of the new invoice once, whichever instance created it.
    await Promise.all(shops.map((s) => s.notified()));
    const told = shops.flatMap((s) => s.port.changes).filter((c) => c.orderId === order.id);
    expect(told).toHaveLength(1);
  });

  it('concurrent checkouts of different orders each get their own invoice, once', async () => {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', latencyMs: 100 });
    const orders = Array.from({ length: 8 }, () => makeOrder());
    const results = await Promise.all(
      orders.flatMap((order, o) =>
        Array.from({ length: 5 }, (_, i) =>
          shops[(o + i) % 2].provider.initiatePayment(checkout(order, 'billet')),
        ),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(8);
    for (const order of orders) {
      expect(await shops[0].invoicesAtService(order.id)).toBe(1);
      expect(await shops[1].records(order.id)).toHaveLength(1);
    }
  });

  it('concurrent checkouts after a cancel start exactly one new attempt', async () => {
    const order = makeOrder();
    const first = await shops[0].provider.initiatePayment(checkout(order, 'pix'));
    await shops[1].provider.cancelPayment({ data: first.data });
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', latencyMs: 200 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => shops[i % 2].provider.initiatePayment(checkout(order, 'billet'))),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results[0].data.attempt).toBe(2);
    expect(await shops[0].invoicesAtService(order.id)).toBe(2);
  });
});
