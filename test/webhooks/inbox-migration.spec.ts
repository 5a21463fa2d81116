import { WebhookInboxWaitingFor1763700015200 } from '../../migrations/1763700015200-WebhookInboxWaitingFor';
import { randomUUID } from 'node:crypto';
import { WebhookInbox1763700001000 } from '../../migrations/1763700001000-WebhookInbox';
import { WebhookInboxInvoiceIndex1763700007000 } from '../../migrations/1763700007000-WebhookInboxInvoiceIndex';
import { WebhookInboxRetention1763700009100 } from '../../migrations/1763700009100-WebhookInboxRetention';
import { InvoicePaymentsInit1763700000000 } from '../../migrations/1763700000000-InvoicePaymentsInit';
import { TrackingOutbox1763700002000 } from '../../migrations/1763700002000-TrackingOutbox';
import { InvoiceCustomer1763700011000 } from '../../migrations/1763700011000-InvoiceCustomer';
import { InvoicePaymentsScaleIndexes1763700013700 } from '../../migrations/1763700013700-InvoicePaymentsScaleIndexes';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

function entry(overrides: Partial<WebhookInboxEntry> = {}): WebhookInboxEntry {
  return Object.assign(new WebhookInboxEntry(), {
    id: randomUUID(),
    dedupeKey: `delivery:${randomUUID()}`,
    event: 'invoice.update',
    deliveryId: null,
    webhookId: 'default',
    gatewayId: '123',
    referrer: null,
    statusCode: 5,
    sentAt: '2026-11-21 10:00:00',
    payload: '{"invoice":{}}',
    state: 'pending',
    nextAttemptAt: new Date('2026-11-21T13:00:00.000Z'),
    lockedUntil: null,
    lastError: null,
    outcome: null,
    invoiceRecordId: null,
    receivedAt: new Date('2026-11-21T13:00:00.000Z'),
    processedAt: null,
    waitingFor: null,
    ...overrides,
  });
}

describeEachDatabase('WebhookInbox migration', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [WebhookInboxEntry],
      // The scale indexes (the Operations tab's list) cover the invoice and outbox tables too: they must exist.
      migrations: [
        InvoicePaymentsInit1763700000000,
        WebhookInbox1763700001000,
        TrackingOutbox1763700002000,
        WebhookInboxInvoiceIndex1763700007000,
        WebhookInboxRetention1763700009100,
        InvoiceCustomer1763700011000,
        InvoicePaymentsScaleIndexes1763700013700,
        WebhookInboxWaitingFor1763700015200,
      ],
      migrationsRun: false,
    });
  });
  afterAll(async () => db.destroy());

  it('creates the inbox table (and its invoice index) exactly as the entity describes it', async () => {
    const ran = await db.dataSource.runMigrations();
    expect(ran.map((m) => m.name)).toEqual([
      'InvoicePaymentsInit1763700000000',
      'WebhookInbox1763700001000',
      'TrackingOutbox1763700002000',
      'WebhookInboxInvoiceIndex1763700007000',
      'WebhookInboxRetention1763700009100',
      'InvoiceCustomer1763700011000',
      'InvoicePaymentsScaleIndexes1763700013700',
      'WebhookInboxWaitingFor1763700015200',
    ]);
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('stores an entry and refuses a second one with the same dedupe key', async () => {
    const repo = db.dataSource.getRepository(WebhookInboxEntry);
    const first = entry();
    await repo.insert(first);
    const read = await repo.findOneByOrFail({ id: first.id });
    expect(read).toMatchObject({ state: 'pending', attempts: 0, statusCode: 5 });
    expect(read.nextAttemptAt?.toISOString()).toBe('2026-11-21T13:00:00.000Z');
    await expect(repo.insert(entry({ dedupeKey: first.dedupeKey }))).rejects.toThrow(/unique|duplicate/i);
    expect(await repo.countBy({ dedupeKey: first.dedupeKey })).toBe(1);
  });

  it('drops the waiting column, the indexes, then the table on the way down and can run again', async () => {
    const qr = db.dataSource.createQueryRunner();
    try {
      await db.dataSource.undoLastMigration();
      const columns = (await qr.getTable('invoice_payments_webhook_inbox'))?.columns.map((c) => c.name);
      expect(columns).not.toContain('waiting_for');
      await db.dataSource.undoLastMigration();
      const listed = await qr.getTable('invoice_payments_webhook_inbox');
      expect(listed?.indices.map((i) => i.name)).not.toContain('IDX_invoice_payments_webhook_inbox_list');
      await db.dataSource.undoLastMigration(); // the invoice's customer columns
      await db.dataSource.undoLastMigration();
      const before = await qr.getTable('invoice_payments_webhook_inbox');
      expect(before?.indices.map((i) => i.name)).not.toContain('IDX_invoice_payments_webhook_inbox_done');
      await db.dataSource.undoLastMigration();
      const table = await qr.getTable('invoice_payments_webhook_inbox');
      expect(table?.indices.map((i) => i.name)).not.toContain('IDX_invoice_payments_webhook_inbox_invoice');
      await db.dataSource.undoLastMigration(); // the outbox
      await db.dataSource.undoLastMigration();
      expect(await qr.hasTable('invoice_payments_webhook_inbox')).toBe(false);
    } finally {
      await qr.release();
    }
    await db.dataSource.runMigrations();
    expect(await db.dataSource.getRepository(WebhookInboxEntry).count()).toBe(0);
  });
});
