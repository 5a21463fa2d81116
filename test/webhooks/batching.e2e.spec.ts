import { randomUUID } from 'node:crypto';
import { InvoiceStatusService } from '../../src/core/invoice-status.service';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { RecordingProxy } from '../gateway/support/recording-proxy';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  waitFor,
} from './support';
import { InvoiceStatusHistory } from '../../src/persistence/invoice.entity';

/**
 * Issue 27: with confirmation on (the default), the inbox is taken a batch at a time; each invoice of a batch costs
 * one lookup at the service and at most one status change, however many of its deliveries wait. Over HTTP, with
 * the sandbox behind a recording proxy to count what reaches it, on both databases.
 */
describeEachDatabase('webhooks: the inbox in batches', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let proxy: RecordingProxy;
  let token: string;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
    // Only the deliveries this test posts reach the route.
    sandbox.controls.setWebhookFaults({ hold: true });
    proxy = await RecordingProxy.start(sandbox.url);
    token = sandbox.controls.webhooks()[0].token;
  });
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  const lookupsOf = (gatewayId: string) =>
    proxy
      .apiRequests()
      .filter((r) => r.method === 'GET' && r.path.startsWith('/invoices') && r.query.get('id') === gatewayId);

  /** A paid invoice with a record, and `count` deliveries of it stored and acknowledged but not processed yet. */
  async function waitingDeliveries(count: number) {
    const first = await startWebhookApp(db, { url: proxy.url }, { inbox: { pollIntervalMs: 0 } });
    const { invoice, referrer } = await createSandboxInvoice(first.gateway);
    const rec = await insertInvoiceRecord(db.dataSource, {
      gatewayId: invoice.id,
      referrer,
      amountCents: 2_100,
      statusCode: 1,
    });
    await sandbox.controls.pay(invoice.id);
    // It stores and acknowledges, then stops before processing: the deliveries wait in the inbox.
    await first.processor.onModuleDestroy();
    for (let i = 0; i < count; i++) {
      const body = {
        event: 'invoice.update',
        delivery_id: randomUUID(),
        webhook: 'default',
        sent_at: '2026-11-24 10:00:00',
        invoice: sandbox.controls.renderInvoice(invoice.id),
      };
      const res = await postDelivery(first.url, '/webhooks/invoice-payments', body, [
        'default',
        tokenLine('', token),
      ]);
      expect(res.status).toBe(200);
    }
    await first.close();
    proxy.reset();
    return { invoice, rec };
  }

  it('thirty stored deliveries of one paid invoice: one lookup, one change, the port told once, all processed', async () => {
    const { invoice, rec } = await waitingDeliveries(30);
    const next = await startWebhookApp(db, { url: proxy.url }, { inbox: { pollIntervalMs: 0 } });
    const guarded = jest.spyOn(
      InvoiceStatusService.prototype as unknown as { writeGuarded(): Promise<boolean> },
      'writeGuarded',
    );
    try {
      await next.processor.runOnce();
      await next.settle();
      expect(lookupsOf(invoice.id)).toHaveLength(1);
      // PostgreSQL: the change is written by one guarded statement (the record and its history as the batch read
      // them); SQLite: by the locked transaction.
      const written = await Promise.all(guarded.mock.results.map((r) => r.value as Promise<unknown>));
      expect(written).toEqual(kind === 'postgres' ? [true] : []);
      const entries = await db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: invoice.id });
      expect(entries).toHaveLength(30);
      expect(entries.every((e) => e.state === 'processed' && e.invoiceRecordId === rec.id)).toBe(true);
      expect(
        next.port.changes.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code),
      ).toEqual([5]);
      const history = await db.dataSource
        .getRepository(InvoiceStatusHistory)
        .findBy({ invoiceRecordId: rec.id, toCode: 5 });
      expect(history).toHaveLength(1);
      expect(history[0].notifiedAt).not.toBeNull();

      // A delivery received after that confirmation is confirmed again (what it reports may be newer).
      proxy.reset();
      const res = await postDelivery(
        next.url,
        '/webhooks/invoice-payments',
        {
          event: 'invoice.update',
          delivery_id: randomUUID(),
          webhook: 'default',
          sent_at: '2026-11-24 10:01:00',
          invoice: sandbox.controls.renderInvoice(invoice.id),
        },
        ['default', tokenLine('', token)],
      );
      expect(res.status).toBe(200);
      // Within a second of the last lookups of this invoice it may wait for the next (`webhooks.lookupWindowMs`).
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      await waitFor(async () => (await inbox.findOneByOrFail({ id: res.body.id })).state === 'processed');
      await next.settle();
      expect(lookupsOf(invoice.id)).toHaveLength(1);
      // The service said nothing new: nothing more is written or told.
      expect(
        await db.dataSource.getRepository(InvoiceStatusHistory).countBy({ invoiceRecordId: rec.id }),
      ).toBe(1);
      expect(next.port.changes.filter((c) => c.invoiceRecordId === rec.id)).toHaveLength(1);
    } finally {
      guarded.mockRestore();
      await next.close();
    }
  });

  it('handled on an entry a batch holds resolves once that batch has processed it (as Medusa waits for it)', async () => {
    const { invoice, rec } = await waitingDeliveries(1);
    const next = await startWebhookApp(db, { url: proxy.url }, { inbox: { pollIntervalMs: 0 } });
    try {
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      const [entry] = await inbox.findBy({ gatewayId: invoice.id });
      // A batch claims it first (the poll, or the quiet period after an arrival); the host waits for that batch.
      const batch = next.processor.runOnce();
      await next.processor.handled(entry.id);
      expect(await inbox.findOneByOrFail({ id: entry.id })).toMatchObject({
        state: 'processed',
        invoiceRecordId: rec.id,
      });
      await batch;
    } finally {
      await next.close();
    }
  });

  it('later batches close the deliveries an applied lookup answered without reading the record again', async () => {
    const { invoice, rec } = await waitingDeliveries(30);
    const next = await startWebhookApp(
      db,
      { url: proxy.url },
      { inbox: { pollIntervalMs: 0, batchSize: 10 } },
    );
    const queries = jest.spyOn(db.dataSource.logger, 'logQuery');
    try {
      await next.processor.runOnce();
      await next.settle();
      expect(lookupsOf(invoice.id)).toHaveLength(1);
      // The batches' reads of records by invoice number (the status path's own reads are not the batch's).
      const recordReads = queries.mock.calls.filter(
        ([sql]) => /^SELECT/.test(sql) && /"invoice_payments_invoice".*"gateway_id" IN \(/.test(sql),
      );
      // The first batch of 10 reads the record; the two after it are answered by its lookup.
      expect(recordReads).toHaveLength(1);
      const entries = await db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: invoice.id });
      expect(entries.map((e) => [e.state, e.invoiceRecordId])).toEqual(Array(30).fill(['processed', rec.id]));
      expect(entries.filter((e) => e.outcome?.startsWith('answered'))).toHaveLength(20);
    } finally {
      queries.mockRestore();
      await next.close();
    }
  });
});
