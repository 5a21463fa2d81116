import { generateCpf } from '@brazilian-utils/brazilian-utils';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  ourReferrer,
  recordedSandboxInvoice,
  startWebhookApp,
  waitFor,
  WebhookApp,
} from './support';

/** What `createSandboxInvoice` charges (2 × 10.50): the record must be for the amount the invoice is for. */
const SANDBOX_INVOICE_CENTS = 2_100;
/** For a test whose work (a hundred invoices created, paged and applied) takes a busy machine past the default 30 s. */
const LOADED_MS = 90_000;

/** Real deliveries from the sandbox, applied through the inbox, the transition table and the outbox. */
describeEachDatabase('webhooks: applying real deliveries', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({ webhookRetry: { attempts: 5, baseDelayMs: 20, factor: 2 } });
    app = await startWebhookApp(db, sandbox, { inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } });
  });
  afterAll(async () => {
    await app.close();
    await sandbox.close();
    await db.destroy();
  });
  afterEach(() => sandbox.controls.clearFaults());

  const records = () => db.dataSource.getRepository(InvoiceRecord);
  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const history = (recordId: string) =>
    db.dataSource
      .getRepository(InvoiceStatusHistory)
      .find({ where: { invoiceRecordId: recordId }, order: { createdAt: 'ASC' } });
  const codesTold = (recordId: string) =>
    app.port.changes.filter((c) => c.invoiceRecordId === recordId).map((c) => c.current.code);

  /** An invoice at the sandbox whose webhooks come to the app, and its local record (as the checkout writes it). */
  async function paidLater() {
    const { id, rec } = await recordedSandboxInvoice(app, db.dataSource);
    return { id, rec };
  }

  async function settled(recordId: string, code: number) {
    await sandbox.controls.waitForDeliveries();
    await waitFor(
      async () => (await records().findOneByOrFail({ id: recordId })).statusCode === code,
      15_000,
      `status ${code}`,
    );
    await app.settle();
  }

  it('moves an order forward from the service: created, then paid, each change told once', async () => {
    const { id, rec } = await paidLater();
    await settled(rec.id, 1);
    await sandbox.controls.pay(id);
    await settled(rec.id, 5);
    const stored = await records().findOneByOrFail({ id: rec.id });
    expect(stored).toMatchObject({ statusCode: 5, openOrderId: rec.orderId, grossCents: 2100 });
    expect(codesTold(rec.id)).toEqual([1, 5]);
    expect(app.port.changes.find((c) => c.invoiceRecordId === rec.id && c.current.code === 5)).toMatchObject({
      source: 'webhook',
      previous: { code: 1, orderPaymentStatus: 'awaiting' },
      current: { code: 5, sessionStatus: 'captured', orderPaymentStatus: 'captured' },
    });
    expect(app.busChanges.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code)).toEqual([
      1, 5,
    ]);
  });

  it('applies every step of deliveries that arrive in order (card: 1 → 2 → 5, five invoices at once)', async () => {
    const recs = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const card = sandbox.controls.createCardToken({
          number: '4111111111111111',
          holder: 'MARIA SILVA',
          expiry: '12/30',
        });
        const referrer = ourReferrer();
        // What the checkout sent: the referrer, the payment id (its order id) and the amount (matched by referrer).
        const rec = await insertInvoiceRecord(db.dataSource, {
          orderId: referrer,
          amountCents: 5_000,
          gatewayId: null,
          creationState: 'pending', // as the checkout writes it before asking
          referrer,
          method: 'card',
        });
        await app.gateway.createInvoice({
          client: { name: 'Maria Silva', document: generateCpf(), email: 'maria@example.com' },
          payment: {
            method: 'card',
            physical: false,
            id: referrer,
            referrer,
            webhook: app.webhookUrl,
            products: [{ id: 'sku-1', title: 'Mug', quantity: 1, discountCents: 0, unitAmountCents: 5000 }],
            card: { token: card.token, valid: '12/30', holderName: 'MARIA SILVA' },
          },
        });
        return rec;
      }),
    );
    for (const rec of recs) await settled(rec.id, 5);
    // Each delivery is confirmed with the service, which may already be further on: the host is told the steps the
    // service still showed, in order, ending paid (1 → 2 → 5, or fewer when a lookup saw a later state).
    for (const rec of recs) {
      const told = codesTold(rec.id);
      expect(told.at(-1)).toBe(5);
      expect(told).toEqual([1, 2, 5].filter((c) => told.includes(c)));
    }
  });

  it('applies a duplicated delivery once (sandbox duplicate fault)', async () => {
    const { id, rec } = await paidLater();
    await settled(rec.id, 1);
    sandbox.controls.setWebhookFaults({ duplicate: 1 });
    await sandbox.controls.pay(id);
    await settled(rec.id, 5);
    const paidDeliveries = sandbox.deliveries().filter((d) => d.invoiceId === id && d.statusCode === 5);
    expect(paidDeliveries).toHaveLength(2);
    expect(new Set(paidDeliveries.map((d) => d.deliveryId)).size).toBe(1);
    expect(codesTold(rec.id)).toEqual([1, 5]);
    expect(await inbox().countBy({ deliveryId: paidDeliveries[0].deliveryId })).toBe(1);
  });

  it('keeps the furthest state when deliveries arrive in reverse order (sandbox reorder fault)', async () => {
    const { id, rec } = await paidLater();
    await settled(rec.id, 1);
    sandbox.controls.setWebhookFaults({ reorder: 2 });
    await sandbox.controls.pay(id); // 1 → 5
    await app.gateway.refundInvoice({
      id,
      invoiceId: sandbox.controls.getInvoice(id)!.invoiceId,
      amountCents: 2100,
    }); // 5 → 9
    await settled(rec.id, 9);
    const told = codesTold(rec.id);
    expect(told[told.length - 1]).toBe(9);
    // The late "paid" delivery is confirmed with the service, which says refunded: it applies nothing older.
    expect(told.indexOf(5)).toBeLessThan(told.indexOf(9));
    const rows = await history(rec.id);
    expect(
      rows.every((r) => r.toCode !== 5 || r.createdAt <= rows.find((x) => x.toCode === 9)!.createdAt),
    ).toBe(true);
  });

  it('records an unknown status code and never applies it', async () => {
    const { id, rec } = await paidLater();
    await settled(rec.id, 1);
    await sandbox.controls.setStatus(id, 13);
    await sandbox.controls.waitForDeliveries();
    await waitFor(
      async () => (await history(rec.id)).some((r) => r.toCode === 13),
      15_000,
      'code 13 recorded',
    );
    await app.settle();
    expect((await records().findOneByOrFail({ id: rec.id })).statusCode).toBe(1);
    expect((await history(rec.id)).find((r) => r.toCode === 13)).toMatchObject({ applied: false });
    const entry = await inbox().findOneByOrFail({ gatewayId: id, statusCode: 13 });
    expect(entry).toMatchObject({
      state: 'processed',
      outcome: expect.stringContaining('unknown status code 13'),
    });
    expect(codesTold(rec.id)).toEqual([1]);
  });

  it('acknowledges deliveries for an invoice with no record here; with the record (by referrer) they are applied', async () => {
    const stray = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl });
    await sandbox.controls.waitForDeliveries();
    // No record names it: acknowledged at the first attempt (nothing for the service to retry), nothing stored.
    const acknowledged = sandbox.deliveries().filter((d) => d.invoiceId === stray.invoice.id);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.every((d) => d.state === 'delivered' && d.attempts.length === 1)).toBe(true);
    expect(acknowledged.every((d) => d.attempts[0].status === 200)).toBe(true);
    expect(await inbox().countBy({ gatewayId: stray.invoice.id })).toBe(0);

    // As the checkout does: the record is written (by referrer, no number yet) before the invoice is created.
    const referrer = ourReferrer();
    const rec = await insertInvoiceRecord(db.dataSource, {
      orderId: referrer, // the payment id `createSandboxInvoice` sends
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: null,
      creationState: 'pending', // as the checkout writes it before asking
      referrer,
    });
    const created = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl, referrer });
    await sandbox.controls.pay(created.invoice.id);
    await sandbox.controls.waitForDeliveries();
    const ours = sandbox.deliveries().filter((d) => d.invoiceId === created.invoice.id);
    expect(ours.every((d) => d.state === 'delivered' && d.attempts.length === 1)).toBe(true);
    await waitFor(async () =>
      (await inbox().findBy({ gatewayId: created.invoice.id })).every((e) => e.state === 'processed'),
    );
    await app.settle();
    const stored = await records().findOneByOrFail({ id: rec.id });
    expect(stored).toMatchObject({ statusCode: 5, gatewayId: created.invoice.id });
    expect(codesTold(rec.id).at(-1)).toBe(5);
  });

  it('recovers a dropped webhook with the reconciliation sweep, through the same path', async () => {
    const { id, rec } = await paidLater();
    await settled(rec.id, 1);
    sandbox.controls.setWebhookFaults({ drop: 1 });
    await sandbox.controls.pay(id);
    await sandbox.controls.waitForDeliveries();
    expect(sandbox.deliveries().find((d) => d.invoiceId === id && d.statusCode === 5)?.state).toBe('dropped');
    expect((await records().findOneByOrFail({ id: rec.id })).statusCode).toBe(1);

    const result = await app.app.get(ReconciliationService).sweep();
    expect(result.error).toBeNull();
    expect(result.applied).toBeGreaterThanOrEqual(1);
    await app.settle();
    expect((await records().findOneByOrFail({ id: rec.id })).statusCode).toBe(5);
    expect((await history(rec.id)).at(-1)).toMatchObject({ toCode: 5, applied: true, source: 'sweep' });
    expect(codesTold(rec.id)).toEqual([1, 5]);

    // A second sweep finds nothing to do and writes nothing.
    const rows = (await history(rec.id)).length;
    const again = await app.app.get(ReconciliationService).sweep();
    expect(again.applied).toBe(0);
    expect((await history(rec.id)).length).toBe(rows);
  });
});

describeEachDatabase('webhooks: the sweep of the whole account', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
    await db.destroy();
  });

  it(
    'never runs on its own, and on demand pages through every invoice (100 a page)',
    async () => {
      const app = await startWebhookApp(db, sandbox, { path: 'sweep/hook' });
      const created = await Promise.all(Array.from({ length: 105 }, () => createSandboxInvoice(app.gateway)));
      const recs = await Promise.all(
        created.map((c) =>
          insertInvoiceRecord(db.dataSource, {
            amountCents: SANDBOX_INVOICE_CENTS,
            gatewayId: c.invoice.id,
            referrer: c.referrer,
          }),
        ),
      );
      const last = created[created.length - 1].invoice.id;
      await sandbox.controls.pay(last); // no webhook reaches the app: nothing registered for it
      // Whatever the payment sent has been delivered and the app's inbox and notifications have settled.
      await sandbox.controls.waitForDeliveries();
      await app.settle();
      expect(
        (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: recs[104].id })).statusCode,
      ).toBeNull();
      try {
        // A sweep that a dropped connection stopped starts over, as the next one would.
        let swept = await app.app.get(ReconciliationService).sweep();
        for (let i = 0; i < 5 && swept.error !== null; i++)
          swept = await app.app.get(ReconciliationService).sweep();
        expect(swept).toMatchObject({ pages: 2, error: null });
        expect(
          (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: recs[104].id })).statusCode,
        ).toBe(5);
        await app.settle();
        expect(app.port.changes.find((c) => c.invoiceRecordId === recs[104].id)).toMatchObject({
          source: 'sweep',
          current: { code: 5 },
        });
        expect(
          (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: recs[0].id })).statusCode,
        ).toBe(1);
      } finally {
        await app.close();
      }
    },
    LOADED_MS,
  );
});
