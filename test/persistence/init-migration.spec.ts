import { randomUUID } from 'node:crypto';
import { OpenInvoiceReconciliation1763700009000 } from '../../migrations/1763700009000-OpenInvoiceReconciliation';
import { StatusNotifyLease1763700006000 } from '../../migrations/1763700006000-StatusNotifyLease';
import { Repository } from 'typeorm';
import { InvoicePaymentsInit1763700000000 } from '../../migrations/1763700000000-InvoicePaymentsInit';
import { CheckoutSettlement1763700005500 } from '../../migrations/1763700005500-CheckoutSettlement';
import { InvoiceCustomer1763700011000 } from '../../migrations/1763700011000-InvoiceCustomer';
import { TrackingOutbox1763700002000 } from '../../migrations/1763700002000-TrackingOutbox';
import { WebhookInbox1763700001000 } from '../../migrations/1763700001000-WebhookInbox';
import { InvoicePaymentsScaleIndexes1763700013700 } from '../../migrations/1763700013700-InvoicePaymentsScaleIndexes';
import { ShopperStatusToken1763700014000 } from '../../migrations/1763700014000-ShopperStatusToken';
import { ReconciliationWatchedFrom1763700015300 } from '../../migrations/1763700015300-ReconciliationWatchedFrom';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

const TABLES = ['invoice_payments_invoice', 'invoice_payments_status_history'];

function record(overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  const now = new Date('2026-11-21T13:00:00.000Z');
  return Object.assign(new InvoiceRecord(), {
    id: randomUUID(),
    orderId: 'order_1',
    openOrderId: 'order_1',
    attempt: 1,
    referrer: `ref-${randomUUID()}`,
    creationState: 'pending',
    method: 'pix',
    currency: 'BRL',
    amountCents: 9_007_199_254_740_991, // the largest safe integer survives BIGINT on both drivers
    createdAt: now,
    updatedAt: now,
    ...overrides,
  });
}

describeEachDatabase('InvoicePaymentsInit migration', (kind) => {
  let db: TestDatabase;
  let invoices: Repository<InvoiceRecord>;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [InvoiceRecord, InvoiceStatusHistory],
      migrations: [
        InvoicePaymentsInit1763700000000,
        CheckoutSettlement1763700005500,
        StatusNotifyLease1763700006000,
        OpenInvoiceReconciliation1763700009000,
        InvoiceCustomer1763700011000,
        // The scale indexes cover the inbox and the outbox too: their tables must exist.
        WebhookInbox1763700001000,
        TrackingOutbox1763700002000,
        InvoicePaymentsScaleIndexes1763700013700,
        ShopperStatusToken1763700014000,
        ReconciliationWatchedFrom1763700015300,
      ],
      migrationsRun: false,
    });
    invoices = db.dataSource.getRepository(InvoiceRecord);
  });
  afterAll(async () => db.destroy());

  it('creates both tables, exactly as the entities describe them', async () => {
    const ran = await db.dataSource.runMigrations();
    expect(ran.map((m) => m.name)).toEqual([
      'InvoicePaymentsInit1763700000000',
      'WebhookInbox1763700001000',
      'TrackingOutbox1763700002000',
      'CheckoutSettlement1763700005500',
      'StatusNotifyLease1763700006000',
      'OpenInvoiceReconciliation1763700009000',
      'InvoiceCustomer1763700011000',
      'InvoicePaymentsScaleIndexes1763700013700',
      'ShopperStatusToken1763700014000',
      'ReconciliationWatchedFrom1763700015300',
    ]);
    const qr = db.dataSource.createQueryRunner();
    try {
      for (const t of TABLES) expect(await qr.hasTable(t)).toBe(true);
    } finally {
      await qr.release();
    }
    // The schema builder compares the live schema with the entity metadata: no pending change means the
    // migration and the entities agree on every column, type, default, index and unique constraint.
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('stores and reads an invoice and its history through the repositories', async () => {
    const saved = await invoices.save(record({ pixPayload: '000201...', dueDate: '2026-11-24' }));
    const read = await invoices.findOneByOrFail({ id: saved.id });
    expect(read).toMatchObject({
      orderId: 'order_1',
      creationState: 'pending',
      amountCents: 9_007_199_254_740_991,
      refundedCents: 0,
      amountMismatch: false,
      installments: 1,
      version: 1,
      dueDate: '2026-11-24',
    });
    expect(read.createdAt.toISOString()).toBe('2026-11-21T13:00:00.000Z');

    read.statusCode = 1;
    const updated = await invoices.save(read);
    expect(updated.version).toBe(2);

    const history = db.dataSource.getRepository(InvoiceStatusHistory);
    await history.save(
      Object.assign(new InvoiceStatusHistory(), {
        id: randomUUID(),
        invoiceRecordId: saved.id,
        fromCode: null,
        toCode: 1,
        statusText: 'pending',
        source: 'create',
        applied: true,
        note: null,
        alert: null,
        notifiedAt: null,
        notifyError: null,
        createdAt: new Date(),
      }),
    );
    const rows = await history.findBy({ invoiceRecordId: saved.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ toCode: 1, applied: true, notifyAttempts: 0, notifiedAt: null });
  });

  it('refuses a second open invoice for one order, and allows it once the first is closed', async () => {
    const first = await invoices.save(record({ orderId: 'order_2', openOrderId: 'order_2' }));
    await expect(
      invoices.insert(record({ orderId: 'order_2', openOrderId: 'order_2', attempt: 2 })),
    ).rejects.toThrow(/unique|duplicate/i);
    expect(await invoices.countBy({ orderId: 'order_2' })).toBe(1);

    await invoices.update({ id: first.id }, { openOrderId: null });
    await invoices.insert(record({ orderId: 'order_2', openOrderId: 'order_2', attempt: 2 }));
    expect(await invoices.countBy({ orderId: 'order_2' })).toBe(2);
  });

  it('refuses a reused referrer and a reused service invoice id', async () => {
    const a = await invoices.save(record({ orderId: 'order_3', openOrderId: null, gatewayId: 'inv_1' }));
    await expect(
      invoices.insert(record({ orderId: 'order_4', openOrderId: null, referrer: a.referrer })),
    ).rejects.toThrow(/unique|duplicate/i);
    await expect(
      invoices.insert(record({ orderId: 'order_5', openOrderId: null, gatewayId: 'inv_1' })),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it('refuses a status token hash that another record holds, as either hash', async () => {
    const hash = 'a'.repeat(64);
    await invoices.save(record({ orderId: 'order_6', openOrderId: null, statusTokenHash: hash }));
    await expect(
      invoices.insert(record({ orderId: 'order_7', openOrderId: null, statusTokenHash: hash })),
    ).rejects.toThrow(/unique|duplicate/i);
    await expect(
      invoices.insert(record({ orderId: 'order_8', openOrderId: null, previousTokenHash: 'b'.repeat(64) })),
    ).resolves.toBeDefined();
    await expect(
      invoices.insert(record({ orderId: 'order_9', openOrderId: null, previousTokenHash: 'b'.repeat(64) })),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it('drops the window start, the token columns, the scale indexes, the customer columns, the reconciliation column and lease table, the lease column, then both tables, on the way down', async () => {
    await db.dataSource.undoLastMigration();
    const qr = db.dataSource.createQueryRunner();
    try {
      expect(await qr.hasColumn('invoice_payments_invoice', 'watched_from')).toBe(false);
      await db.dataSource.undoLastMigration();
      for (const column of ['status_token_hash', 'previous_token_hash']) {
        expect(await qr.hasColumn('invoice_payments_invoice', column)).toBe(false);
      }
      await db.dataSource.undoLastMigration();
      const indexes = (await qr.getTable('invoice_payments_invoice'))?.indices.map((i) => i.name) ?? [];
      expect(indexes.filter((name) => /_(created|status|method|creation)$/.test(name ?? ''))).toEqual([]);
      await db.dataSource.undoLastMigration();
      for (const column of ['display_id', 'customer_name', 'customer_email', 'customer_document']) {
        expect(await qr.hasColumn('invoice_payments_invoice', column)).toBe(false);
      }
      await db.dataSource.undoLastMigration();
      expect(await qr.hasColumn('invoice_payments_invoice', 'next_check_at')).toBe(false);
      expect(await qr.hasTable('invoice_payments_lease')).toBe(false);
      await db.dataSource.undoLastMigration();
      expect(await qr.hasColumn('invoice_payments_status_history', 'notify_locked_until')).toBe(false);
      await db.dataSource.undoLastMigration();
      // The settlement columns go first, and a history row without a code cannot stay behind.
      expect(await qr.hasColumn('invoice_payments_invoice', 'settles_at')).toBe(false);
      expect(await qr.hasColumn('invoice_payments_status_history', 'actor')).toBe(false);
      await db.dataSource.undoLastMigration(); // the outbox
      await db.dataSource.undoLastMigration(); // the inbox
      await db.dataSource.undoLastMigration();
      for (const t of TABLES) expect(await qr.hasTable(t)).toBe(false);
    } finally {
      await qr.release();
    }
    // And up again on the emptied database: down left nothing behind that blocks a re-run.
    await db.dataSource.runMigrations();
    expect(await invoices.count()).toBe(0);
  });
});
