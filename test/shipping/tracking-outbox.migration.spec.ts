import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { TrackingOutbox1763700002000 } from '../../migrations/1763700002000-TrackingOutbox';
import { TrackingErrorKind1763700011100 } from '../../migrations/1763700011100-TrackingErrorKind';
import { InvoicePaymentsInit1763700000000 } from '../../migrations/1763700000000-InvoicePaymentsInit';
import { InvoiceCustomer1763700011000 } from '../../migrations/1763700011000-InvoiceCustomer';
import { WebhookInbox1763700001000 } from '../../migrations/1763700001000-WebhookInbox';
import { InvoicePaymentsScaleIndexes1763700013700 } from '../../migrations/1763700013700-InvoicePaymentsScaleIndexes';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

const TABLE = 'invoice_payments_tracking_outbox';

function row(overrides: Partial<TrackingOutbox> = {}): TrackingOutbox {
  const now = new Date('2026-11-21T13:00:00.000Z');
  return Object.assign(new TrackingOutbox(), {
    id: randomUUID(),
    orderId: 'order_1',
    code: 'BR123456789BR',
    carrier: null,
    url: null,
    invoiceRecordId: randomUUID(),
    gatewayInvoiceId: 'inv_1',
    status: 'pending',
    nextAttemptAt: now,
    lockedUntil: null,
    lockedBy: null,
    lastError: null,
    recordedAt: now,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  });
}

describeEachDatabase('TrackingOutbox migration', (kind) => {
  let db: TestDatabase;
  let outbox: Repository<TrackingOutbox>;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [TrackingOutbox],
      // The scale indexes (the sent rows' retention) cover the invoice and inbox tables too: they must exist.
      migrations: [
        InvoicePaymentsInit1763700000000,
        WebhookInbox1763700001000,
        TrackingOutbox1763700002000,
        InvoiceCustomer1763700011000,
        TrackingErrorKind1763700011100,
        InvoicePaymentsScaleIndexes1763700013700,
      ],
      migrationsRun: false,
    });
    outbox = db.dataSource.getRepository(TrackingOutbox);
  });
  afterAll(async () => db.destroy());

  it('creates the table exactly as the entity describes it', async () => {
    const ran = await db.dataSource.runMigrations();
    expect(ran.map((m) => m.name)).toEqual([
      'InvoicePaymentsInit1763700000000',
      'WebhookInbox1763700001000',
      'TrackingOutbox1763700002000',
      'InvoiceCustomer1763700011000',
      'TrackingErrorKind1763700011100',
      'InvoicePaymentsScaleIndexes1763700013700',
    ]);
    // No pending schema change: migration and entity agree on columns, types, defaults, index and unique.
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('stores a row with its defaults and reads timestamps back as dates', async () => {
    const saved = await outbox.save(row({ carrier: 'Correios', url: 'https://example.com/t/BR1' }));
    const read = await outbox.findOneByOrFail({ id: saved.id });
    expect(read).toMatchObject({ attempts: 0, status: 'pending', carrier: 'Correios', lockedUntil: null });
    expect(read.nextAttemptAt.toISOString()).toBe('2026-11-21T13:00:00.000Z');
  });

  it('refuses a second row for the same order and code, and takes another code', async () => {
    await outbox.insert(row({ orderId: 'order_2' }));
    await expect(outbox.insert(row({ orderId: 'order_2' }))).rejects.toThrow(/unique|duplicate/i);
    await outbox.insert(row({ orderId: 'order_2', code: 'BR999999999BR' }));
    await outbox.insert(row({ orderId: 'order_3' }));
    expect(await outbox.countBy({ orderId: 'order_2' })).toBe(2);
  });

  it('drops the index of sent rows, the error-kind column, then the table on the way down, and runs up again', async () => {
    await db.dataSource.undoLastMigration();
    const qr = db.dataSource.createQueryRunner();
    try {
      const indexes = (await qr.getTable(TABLE))?.indices.map((i) => i.name);
      expect(indexes).not.toContain('IDX_invoice_payments_tracking_outbox_sent');
      await db.dataSource.undoLastMigration();
      expect(await qr.hasColumn(TABLE, 'last_error_kind')).toBe(false);
      await db.dataSource.undoLastMigration(); // the invoice's customer columns
      await db.dataSource.undoLastMigration();
      expect(await qr.hasTable(TABLE)).toBe(false);
    } finally {
      await qr.release();
    }
    await db.dataSource.runMigrations();
    expect(await outbox.count()).toBe(0);
  });
});
