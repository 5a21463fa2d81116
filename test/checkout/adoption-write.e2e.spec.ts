import { DEFAULT_WIRE_PROFILE } from '../../src/gateway/wire-profile';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/index';
import { withReferrer } from '../../src/core/attempt-claim';
import { InvoiceRecordStore } from '../../src/core/invoice-record.store';
import { mintStatusToken } from '../../src/checkout/status-token';
import { mapOrderToInvoice } from '../../src/checkout/order-mapping';
import { InvoiceStatusService } from '../../src/core/invoice-status.service';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { resolveCheckoutOptions } from '../../src/options/checkout.options';
import { NEVER } from '../../src/persistence/invoice.entity';
import { OpenInvoicesReconciler } from '../../src/reconciliation/open-invoices.reconciler';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { watchGuardedStatements } from '../core/status-harness';
import { AdminApp, openAdminDatabase, startAdminApp } from '../settings/support';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { checkout, makeOrder, waitFor } from './support';

/**
 * A delivery of an invoice whose attempt's answer is not stored yet (its request in flight): the checkout adopts it,
 * linking the record and writing the invoice's status in the one write the checkout's own answer takes, and the
 * delivery applies nothing more, so the status history holds the report once.
 */
describeEachDatabase('checkout: a delivery adopting an invoice writes its status once', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: AdminApp;
  const watch = watchGuardedStatements();

  beforeAll(async () => {
    db = await openAdminDatabase(kind);
    sandbox = await startSandbox();
    shop = await startAdminApp(db, sandbox);
    sandbox.controls.registerWebhook({ url: shop.webhookUrl });
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  /** An attempt claimed for a new order, its request made at the service; its answer not stored. */
  async function attemptInFlight() {
    const order = makeOrder();
    const mapped = mapOrderToInvoice(
      checkout(order, 'pix'),
      resolveCheckoutOptions(),
      Date.now(),
      DEFAULT_WIRE_PROFILE.timeZone,
    );
    const attempt = await shop.app.get(InvoiceRecordStore).claim({
      orderId: order.id,
      reference: mapped.reference,
      method: mapped.method,
      currency: 'BRL',
      amountCents: mapped.totalCents,
      installments: 1,
      namespace: await shop.settings.referrerNamespace(),
      settlesAt: new Date(Date.now() + 60_000),
      statusTokenHash: mintStatusToken().hash,
    });
    // The attempt's request reached the service; its answer has not come back.
    const send = () => shop.gateway.createInvoice(withReferrer(mapped.params, attempt!.referrer));
    return { attempt: attempt!, send };
  }

  it('links the attempt with its status in one statement, and the history holds one row', async () => {
    const { attempt, send } = await attemptInFlight();
    const invoice = await send();
    await sandbox.controls.waitForDeliveries(10_000);
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    await waitFor(
      async () => (await inbox.findBy({ gatewayId: invoice.id })).some((e) => e.state === 'processed'),
      10_000,
      'delivery processed',
    );
    await shop.app.get(StatusChangeDispatcher).drain();

    const record = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: attempt.id });
    expect(record).toMatchObject({ gatewayId: invoice.id, creationState: 'created', statusCode: 1 });
    const history = await db.dataSource
      .getRepository(InvoiceStatusHistory)
      .findBy({ invoiceRecordId: record.id });
    expect(history.map(({ source, toCode, applied }) => ({ source, toCode, applied }))).toEqual([
      { source: 'webhook', toCode: 1, applied: true },
    ]);
    // The link and its status: the status path's one guarded statement on PostgreSQL.
    expect(await watch.statements()).toEqual(kind === 'postgres' ? [true] : []);
  });

  it("puts a closed attempt the reconciliation took off its schedule back on it in the link's one write", async () => {
    const { attempt, send } = await attemptInFlight();
    const store = shop.app.get(InvoiceRecordStore);
    await store.closeNotCreated(attempt.id, 'not found at the service in time');
    await store.rows.update({ id: attempt.id }, { nextCheckAt: NEVER });
    // The record as the link's write left it, read before the linker goes on: what a crash right then would leave.
    const atLink: InvoiceRecord[] = [];
    const apply = InvoiceStatusService.prototype.apply;
    const linking = jest.spyOn(InvoiceStatusService.prototype, 'apply').mockImplementation(async function (
      this: InvoiceStatusService,
      report,
      options,
    ) {
      const applied = await apply.call(this, report, options);
      if (options?.creation && report.recordId === attempt.id) atLink.push(await store.get(attempt.id));
      return applied;
    });
    try {
      const invoice = await send();
      await waitFor(async () => atLink.length > 0, 10_000, 'the late invoice linked');
      expect(atLink[0]).toMatchObject({ gatewayId: invoice.id, creationState: 'created' });
      // Due at once: checked again from now.
      expect(atLink[0].nextCheckAt!.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      linking.mockRestore();
    }
  });

  it('leaves a linked attempt on the schedule when a round that read it closed decides after the link', async () => {
    const { attempt, send } = await attemptInFlight();
    const store = shop.app.get(InvoiceRecordStore);
    await store.closeNotCreated(attempt.id, 'not found at the service in time');
    await store.rows.update({ id: attempt.id }, { nextCheckAt: NEVER });
    const closed = await store.get(attempt.id);
    const invoice = await send();
    await waitFor(async () => (await store.get(attempt.id)).gatewayId === invoice.id, 10_000, 'linked');
    // A round that read the attempt while it was closed, and decides only now: "final, off the schedule".
    type Due = { due(): Promise<InvoiceRecord[]> };
    const due = jest.spyOn(OpenInvoicesReconciler.prototype as unknown as Due, 'due');
    due.mockResolvedValueOnce([closed]);
    const reconciler = shop.app.get(OpenInvoicesReconciler);
    try {
      await waitFor(
        async () => (await reconciler.runOnce()).leader && due.mock.calls.length > 0,
        10_000,
        'round',
      );
    } finally {
      due.mockRestore();
    }
    const record = await store.get(attempt.id);
    expect(record).toMatchObject({ gatewayId: invoice.id, creationState: 'created' });
    expect(record.nextCheckAt?.getTime() ?? 0).toBeLessThan(NEVER.getTime());
  });
});
