import { randomUUID } from 'node:crypto';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { databaseKinds, describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

/**
 * These tests drive the inbox's own mechanics (claims, leases, crash recovery) with deliveries of sandbox invoices
 * the service reports paid; `confirmation.e2e.spec.ts` covers the confirmation itself.
 */

/** A sandbox invoice the service reports paid, and its record as the checkout would have stored it. */
async function paidInvoice(
  app: WebhookApp,
  sandbox: SandboxServer,
  db: TestDatabase,
): Promise<InvoiceRecord> {
  const { invoice, referrer } = await createSandboxInvoice(app.gateway);
  await sandbox.controls.setStatus(invoice.id, 5);
  return insertInvoiceRecord(db.dataSource, { amountCents: 2_100, gatewayId: invoice.id, referrer });
}

/** The delivery the service sends for the invoice as it stands now. */
function paidDelivery(sandbox: SandboxServer, gatewayId: string) {
  return {
    event: 'invoice.update',
    delivery_id: randomUUID(),
    webhook: 'default',
    sent_at: '2026-11-21 10:00:00',
    invoice: sandbox.controls.renderInvoice(gatewayId)!,
  };
}

describeEachDatabase('webhooks: inbox recovery', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let token: string;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
    token = sandbox.controls.webhooks()[0].token;
  });
  afterAll(async () => {
    await sandbox.close();
    await db.destroy();
  });

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const statusOf = async (id: string) =>
    (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id })).statusCode;

  it('applies a delivery stored by an instance that stopped before processing it', async () => {
    const crashed = await startWebhookApp(db, sandbox, { inbox: { pollIntervalMs: 0 } });
    const rec = await paidInvoice(crashed, sandbox, db);
    await crashed.processor.onModuleDestroy(); // it stores and acknowledges, then "crashes" before processing
    const res = await postDelivery(
      crashed.url,
      '/webhooks/invoice-payments',
      paidDelivery(sandbox, rec.gatewayId!),
      ['default', tokenLine('', token)],
    );
    expect(res.status).toBe(200);
    expect((await inbox().findOneByOrFail({ id: res.body.id })).state).toBe('pending');
    await crashed.close();
    expect(await statusOf(rec.id)).toBeNull();

    const next = await startWebhookApp(db, sandbox);
    try {
      await waitFor(async () => (await inbox().findOneByOrFail({ id: res.body.id })).state === 'processed');
      await next.settle();
      expect(await statusOf(rec.id)).toBe(5);
      expect(
        next.port.changes.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code),
      ).toEqual([5]);
    } finally {
      await next.close();
    }
  });

  it('retries an entry whose processing failed (a database hiccup) and applies it once', async () => {
    const app = await startWebhookApp(db, sandbox);
    try {
      const rec = await paidInvoice(app, sandbox, db);
      // Fault injection: the first attempt fails the way a dropped database connection does.
      const apply = jest
        .spyOn(app.statuses, 'apply')
        .mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
      const res = await postDelivery(
        app.url,
        '/webhooks/invoice-payments',
        paidDelivery(sandbox, rec.gatewayId!),
        [tokenLine('', token), 'default'],
      );
      expect(res.status).toBe(200);
      await waitFor(async () => (await inbox().findOneByOrFail({ id: res.body.id })).state === 'processed');
      await app.settle();
      const entry = await inbox().findOneByOrFail({ id: res.body.id });
      expect(entry).toMatchObject({
        attempts: 2,
        lastError: null,
        outcome: 'applied (confirmed with the service)',
        invoiceRecordId: rec.id,
      });
      expect(apply).toHaveBeenCalledTimes(2);
      expect(await statusOf(rec.id)).toBe(5);
      expect(app.port.changes.filter((c) => c.invoiceRecordId === rec.id)).toHaveLength(1);
      apply.mockRestore();
    } finally {
      await app.close();
    }
  });

  it('takes over an entry whose claim lapsed (its processor died holding it)', async () => {
    const app = await startWebhookApp(db, sandbox, { inbox: { pollIntervalMs: 0 } });
    try {
      const rec = await paidInvoice(app, sandbox, db);
      await app.processor.onModuleDestroy();
      const res = await postDelivery(
        app.url,
        '/webhooks/invoice-payments',
        paidDelivery(sandbox, rec.gatewayId!),
        ['default', tokenLine('', token)],
      );
      const lapse = new Date(Date.now() + 2000);
      await inbox().update({ id: res.body.id }, { lockedUntil: lapse, attempts: 1 });

      const next = await startWebhookApp(db, sandbox, { inbox: { pollIntervalMs: 50 } });
      try {
        await next.processor.runOnce();
        await next.processor.drain();
        expect((await inbox().findOneByOrFail({ id: res.body.id })).state).toBe('pending'); // still held
        await waitFor(async () => (await inbox().findOneByOrFail({ id: res.body.id })).state === 'processed');
        expect((await inbox().findOneByOrFail({ id: res.body.id })).attempts).toBe(2);
        expect(await statusOf(rec.id)).toBe(5);
      } finally {
        await next.close();
      }
    } finally {
      await app.close();
    }
  });
});

const describeOnPostgres = databaseKinds().includes('postgres') ? describe : () => undefined;

describeOnPostgres('webhooks: two app instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let a: WebhookApp;
  let b: WebhookApp;

  beforeAll(async () => {
    db = await openWebhooksDatabase('postgres', 30);
    sandbox = await startSandbox();
    a = await startWebhookApp(db, sandbox);
    b = await startWebhookApp(db, sandbox);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await sandbox.close();
    await db.destroy();
  });

  it('stores, applies and notifies a delivery sent to both instances once in all', async () => {
    const token = sandbox.controls.webhooks()[0].token;
    const recs = await Promise.all(Array.from({ length: 40 }, () => paidInvoice(a, sandbox, db)));
    const bodies = recs.map((r) => paidDelivery(sandbox, r.gatewayId!));
    const responses = await Promise.all(
      bodies.flatMap((body) =>
        [a, b].map((app) =>
          postDelivery(app.url, '/webhooks/invoice-payments', body, ['default', tokenLine('', token)]),
        ),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.filter((r) => !r.body.duplicate && !r.body.joined)).toHaveLength(40);
    await waitFor(
      async () =>
        (await db.dataSource.getRepository(WebhookInboxEntry).countBy({ state: 'processed' })) === 40,
    );
    await Promise.all([a.settle(), b.settle()]);
    await waitFor(() => a.port.changes.length + b.port.changes.length >= 40);
    const told = [...a.port.changes, ...b.port.changes];
    expect(told).toHaveLength(40);
    expect(new Set(told.map((c) => c.invoiceRecordId)).size).toBe(40);
  });
});
