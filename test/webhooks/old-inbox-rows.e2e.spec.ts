import { randomUUID } from 'node:crypto';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  ourReferrer,
  startWebhookApp,
  type WebhookApp,
} from './support';

/**
 * Inbox rows no record holds by number or referrer. The route no longer stores such deliveries, but the inbox still
 * holds rows written before it did (the table is older than the route's admission), and an admin may queue one of
 * their dead rows again: the processor looks each invoice up once, within its own budget, and never loses one of ours.
 */
describeEachDatabase('webhooks: inbox rows of invoices no record holds', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  let lookups: jest.SpyInstance;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
  });
  beforeEach(async () => {
    app = await startWebhookApp(db, sandbox, { inbox: { pollIntervalMs: 0 } });
    lookups = jest.spyOn(app.gateway, 'findInvoiceById');
  });
  afterEach(async () => {
    lookups.mockRestore();
    await app?.close();
  });
  afterAll(async () => {
    await sandbox?.close();
    await db?.destroy();
  });

  const entry = (id: string) => db.dataSource.getRepository(WebhookInboxEntry).findOneByOrFail({ id });

  /** A pending row as the inbox kept every authenticated delivery before the route's admission. */
  async function oldRow(gatewayId: string, referrer: string | null): Promise<string> {
    const id = randomUUID();
    const row = Object.assign(new WebhookInboxEntry(), {
      id,
      dedupeKey: `delivery:${id}`,
      event: 'invoice.update',
      deliveryId: id,
      webhookId: 'default',
      gatewayId,
      referrer,
      statusCode: 1,
      sentAt: null,
      payload: JSON.stringify({ event: 'invoice.update' }),
      state: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(),
      waitingFor: null,
      lockedUntil: null,
      lastError: null,
      outcome: null,
      invoiceRecordId: null,
      receivedAt: new Date(),
      processedAt: null,
    });
    await db.dataSource.getRepository(WebhookInboxEntry).insert(row);
    return id;
  }

  /** An invoice at the sandbox no record names; its own deliveries are acknowledged unstored before the test. */
  async function invoiceOfNoRecord(referrer = ourReferrer()) {
    const { invoice } = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl, referrer });
    await sandbox.controls.waitForDeliveries();
    return invoice;
  }

  it('dead-letters an invoice the service does not know after one lookup, with one alert for its rows', async () => {
    const madeUp = `unknown-${randomUUID()}`;
    const ids = [await oldRow(madeUp, null), await oldRow(madeUp, ourReferrer())];
    await app.settle();

    for (const id of ids) {
      const dead = await entry(id);
      expect(dead.state).toBe('dead');
      expect(dead.lastError).toContain(`the service does not know invoice ${madeUp}`);
    }
    expect(lookups.mock.calls.filter(([id]) => id === madeUp)).toHaveLength(1);
    const alerted = app.alerts.filter((a) => a.kind === 'webhook_dead_letter');
    expect(alerted).toHaveLength(1);
    expect(alerted[0].message).toContain('named invoices neither this store nor the service knows');
  });

  it('has the rows of an invoice only the service knows wait for a record, asking the service once', async () => {
    const invoice = await invoiceOfNoRecord();
    const ids = [await oldRow(invoice.id, null), await oldRow(invoice.id, null)];
    await app.settle();

    for (const id of ids) {
      expect(await entry(id)).toMatchObject({ state: 'pending', waitingFor: 'record', attempts: 1 });
    }
    expect(lookups.mock.calls.filter(([id]) => id === invoice.id)).toHaveLength(1);
    expect(app.alerts.filter((a) => a.kind === 'webhook_dead_letter')).toEqual([]);
  });

  it('looks up a row without a referrer whose invoice a record holds by referrer only, and links it', async () => {
    const referrer = ourReferrer();
    const invoice = await invoiceOfNoRecord(referrer);
    // The record the checkout wrote before asking; the create answer never came back.
    const rec = await insertInvoiceRecord(db.dataSource, {
      orderId: referrer,
      amountCents: 2_100,
      gatewayId: null,
      creationState: 'pending',
      referrer,
    });
    const id = await oldRow(invoice.id, null);
    await app.settle();

    expect(await entry(id)).toMatchObject({ state: 'processed', invoiceRecordId: rec.id });
    const linked = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id });
    expect(linked.gatewayId).toBe(invoice.id);
  });
});
