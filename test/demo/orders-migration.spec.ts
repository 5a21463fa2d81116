import { DEMO_STORE_MIGRATIONS } from '../../examples/demo-store/migrations';
import { DemoOrder } from '../../examples/demo-store/order.entity';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

describeEachDatabase('demo store orders migration', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [DemoOrder],
      migrations: DEMO_STORE_MIGRATIONS,
      migrationsRun: false,
    });
  });
  afterAll(async () => db.destroy());

  it('creates the orders table exactly as the entity describes it, and drops it again', async () => {
    const ran = await db.dataSource.runMigrations();
    expect(ran.map((m) => m.name)).toEqual(['DemoStoreOrders1763800000000']);
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);

    const orders = db.dataSource.getRepository(DemoOrder);
    const now = new Date().toISOString();
    await orders.insert({
      id: 'ord_1',
      displayId: 1001,
      status: 'pending',
      paymentStatus: 'not_paid',
      fulfillmentStatus: 'not_fulfilled',
      currencyCode: 'BRL',
      items: [],
      customer: { first_name: 'A', last_name: 'B', email: null, phone: null, document: null },
      shippingAddress: null,
      billingAddress: null,
      subtotal: 9_007_199_254_740_991,
      shippingTotal: 0,
      discountTotal: 0,
      total: 9_007_199_254_740_991,
      refundedTotal: 0,
      paymentMethod: null,
      invoiceRecordId: null,
      paymentEvents: [],
      trackingCode: null,
      carrier: null,
      trackingUrl: null,
      shippedAt: null,
      canceledAt: null,
      createdAt: now,
      updatedAt: now,
    });
    const read = await orders.findOneByOrFail({ id: 'ord_1' });
    // BIGINT cents come back as exact numbers on both drivers, JSON columns as objects.
    expect(read.total).toBe(9_007_199_254_740_991);
    expect(read.customer).toEqual({
      first_name: 'A',
      last_name: 'B',
      email: null,
      phone: null,
      document: null,
    });
    expect(read.version).toBe(1);
    await expect(orders.insert({ ...read, id: 'ord_2' })).rejects.toThrow(); // display_id is unique

    await db.dataSource.undoLastMigration();
    const qr = db.dataSource.createQueryRunner();
    try {
      expect(await qr.hasTable('demo_store_order')).toBe(false);
    } finally {
      await qr.release();
    }
  });
});
