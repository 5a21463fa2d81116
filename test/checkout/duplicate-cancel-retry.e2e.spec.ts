import { randomBytes } from 'node:crypto';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  DuplicateInvoiceCanceled,
  GatewayClient,
  InvoicePaymentProvider,
  InvoicePaymentsEvents,
  InvoicePaymentsModule,
  CheckoutOrder,
  InvoiceRecord,
} from '../../src/index';
import { KEEP_ONE_PAYABLE } from '../../src/core/events';
import { InvoiceStatusService } from '../../src/core/invoice-status.service';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { NEVER } from '../../src/persistence/invoice.entity';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { type HostApp, startHostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  LATE_CREATE,
  lateFirstInvoice,
  makeOrder,
  openCheckoutDatabase,
  RecordingOrderPort,
  sandboxGateway,
  waitFor,
} from './support';

/**
 * A duplicate invoice whose cancel failed is canceled later: the reconciliation, meeting it still payable after its
 * check (a sweep, or a round of a store that leaves the reconciliation's options at their defaults), asks for the
 * order's enforcement again, at the pace of its own checks.
 */
describeEachDatabase('a duplicate whose cancel failed', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: HostApp;
  let gateway: GatewayClient;
  const canceled: DuplicateInvoiceCanceled[] = [];
  /** Orders whose enforcement was asked for (a duplicate's cancel follows only such an ask). */
  const enforcementsAsked: string[] = [];

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    shop = await startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: { ...sandboxGateway(sandbox.url), timeouts: { createMs: LATE_CREATE.createTimeoutMs } },
          checkout: {
            creationWaitMs: 400,
            unknownOutcomeRecheckMs: 100,
            lateCreationMarginMs: LATE_CREATE.marginMs,
          },
          webhooks: { merchantToken: 'shop-secret', inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } },
          admin: {
            adminKey: 'admin-key-for-duplicate-tests-0123456789',
            encryption: { keys: { k1: randomBytes(32) } },
          },
          notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
          orderPort: RecordingOrderPort,
        }),
      ],
      { listen: true },
    );
    gateway = shop.app.get(GatewayClient);
    const events = shop.app.get(EventEmitter2);
    events.on(InvoicePaymentsEvents.DuplicateCanceled, (c: DuplicateInvoiceCanceled) => canceled.push(c));
    events.on(KEEP_ONE_PAYABLE, (orderId: string) => enforcementsAsked.push(orderId));
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });
  afterEach(async () => {
    sandbox.controls.clearFaults();
    await shop.app.get(InvoicePaymentsSettingsService).update({ publicWebhookUrl: null });
    canceled.length = 0;
  });

  const reconciler = () => shop.app.get(ReconciliationService);
  const records = (orderId: string) =>
    db.dataSource.getRepository(InvoiceRecord).find({ where: { orderId }, order: { attempt: 'ASC' } });
  const statusAtService = async (gatewayId: string) =>
    (await gateway.findInvoiceById(gatewayId))?.status.code;
  const deletesLeft = (id: string) => sandbox.controls.faults().find((f) => f.id === id)?.remaining;

  const lateFirst = (order: CheckoutOrder) =>
    lateFirstInvoice({ sandbox, provider: shop.app.get(InvoicePaymentProvider), gateway }, order);

  it('linked by its webhook, is canceled at the service by the next sweep', async () => {
    await shop.app
      .get(InvoicePaymentsSettingsService)
      .update({ publicWebhookUrl: `${shop.url}/webhooks/invoice-payments` });
    const order = makeOrder();
    sandbox.controls.addFault({ method: 'DELETE', path: '/invoices', status: 500, times: 1 });
    const { out, late } = await lateFirst(order);
    await waitFor(
      async () => (await records(order.id))[0]?.gatewayId === late.id,
      5000,
      'the late invoice linked',
    );
    await sandbox.controls.waitForDeliveries();
    await shop.app.get(WebhookInboxProcessor).drain();
    await shop.app.get(StatusChangeDispatcher).drain();
    // Its cancel failed: left payable and marked.
    expect((await records(order.id))[0]).toMatchObject({ statusCode: 1, duplicateOf: out.id });
    expect(await statusAtService(late.id)).toBe(1);
    expect(canceled).toEqual([]);

    await reconciler().sweep();
    await waitFor(async () => (await statusAtService(late.id)) === 6, 5000, 'the duplicate canceled');
    await waitFor(async () => (await records(order.id))[0]?.statusCode === 6, 5000, 'its record canceled');
    const [first, second] = await records(order.id);
    expect(first).toMatchObject({ duplicateOf: out.id, openOrderId: null });
    expect(second).toMatchObject({ id: out.id, statusCode: 1, openOrderId: order.id });
    expect(canceled).toEqual([
      expect.objectContaining({ orderId: order.id, invoiceRecordId: first.id, keptInvoiceRecordId: out.id }),
    ]);
  });

  it('taken off the schedule while its attempt was closed, is put back when linked and retried by a round, at the pace of its checks', async () => {
    const order = makeOrder();
    const { out, late } = await lateFirst(order);
    // A round meets the closed attempt before its late invoice is linked: off the schedule.
    await reconciler().runOnce();
    expect((await records(order.id))[0]).toMatchObject({ creationState: 'failed', nextCheckAt: NEVER });
    const deletes = sandbox.controls.addFault({
      method: 'DELETE',
      path: '/invoices',
      status: 500,
      times: 10,
    }).id;
    await reconciler().sweep(); // links it; its cancel fails
    // Linked and marked, its cancel failed: back on the schedule, due at once.
    const linked = (await records(order.id))[0];
    expect(linked).toMatchObject({ gatewayId: late.id, statusCode: 1, duplicateOf: out.id });
    expect(linked.nextCheckAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(deletesLeft(deletes)).toBe(9);

    // A round checks it and asks for the enforcement again; the cancel fails once more.
    await reconciler().runOnce();
    await waitFor(() => deletesLeft(deletes) === 8, 5000, 'the cancel tried again');
    const next = (await records(order.id))[0].nextCheckAt!.getTime();
    expect(next).toBeGreaterThan(Date.now());
    expect(next).toBeLessThan(NEVER.getTime());
    // Not again until that check is due: the round asks for no enforcement of this order, so no cancel follows.
    const asked = () => enforcementsAsked.filter((id) => id === order.id).length;
    const askedBefore = asked();
    await reconciler().runOnce();
    expect(asked()).toBe(askedBefore);
    expect(deletesLeft(deletes)).toBe(8);

    // Its check falls due (as it would at its next step) and the service answers again: canceled.
    sandbox.controls.clearFaults();
    await db.dataSource
      .getRepository(InvoiceRecord)
      .update({ gatewayId: late.id }, { nextCheckAt: new Date(Date.now() - 1000) });
    await reconciler().runOnce();
    await waitFor(async () => (await statusAtService(late.id)) === 6, 5000, 'the duplicate canceled');
    await waitFor(async () => (await records(order.id))[0]?.statusCode === 6, 5000, 'its record canceled');
    expect(await statusAtService(out.data.gatewayId!)).toBe(1);
    expect(canceled).toEqual([expect.objectContaining({ orderId: order.id, keptInvoiceRecordId: out.id })]);
  });

  it('past its window, off the schedule, is put back on it when its cancel fails again', async () => {
    const order = makeOrder();
    const { out, late } = await lateFirst(order);
    sandbox.controls.addFault({ method: 'DELETE', path: '/invoices', status: 500, times: 10 });
    await reconciler().sweep(); // links it; its cancel fails
    // Checked until its window ended: off the schedule, still payable.
    const repo = db.dataSource.getRepository(InvoiceRecord);
    await repo.update({ gatewayId: late.id }, { nextCheckAt: NEVER });
    shop.app.get(EventEmitter2).emit(KEEP_ONE_PAYABLE, order.id); // the order's next enforcement
    await waitFor(
      async () => (await repo.findOneByOrFail({ gatewayId: late.id })).nextCheckAt!.getTime() <= Date.now(),
      15_000, // the cancel is tried (and fails) first; a busy machine takes seconds for it
      'back on the schedule',
    );
    expect(await repo.findOneByOrFail({ gatewayId: late.id })).toMatchObject({
      statusCode: 1,
      duplicateOf: out.id,
    });
  });

  it("whose kept invoice closed meanwhile, is the order's: unmarked, holding the order, left payable", async () => {
    const order = makeOrder();
    const { out, late } = await lateFirst(order);
    // Every cancel fails until the kept invoice is closed, whatever round comes meanwhile.
    sandbox.controls.addFault({ method: 'DELETE', path: '/invoices', status: 500, times: 100 });
    await reconciler().sweep(); // links it; its cancel fails
    const repo = db.dataSource.getRepository(InvoiceRecord);
    expect(await repo.findOneByOrFail({ gatewayId: late.id })).toMatchObject({
      statusCode: 1,
      duplicateOf: out.id,
    });
    // The order's kept invoice closes: canceled at the service, and so reported.
    await sandbox.controls.setStatus(out.data.gatewayId!, 6);
    await shop.app.get(InvoiceStatusService).apply({ recordId: out.id, code: 6, source: 'sweep' });
    await reconciler().sweep();
    await waitFor(
      async () => (await repo.findOneByOrFail({ gatewayId: late.id })).duplicateOf === null,
      5000,
      'unmarked',
    );
    await waitFor(
      async () => (await repo.findOneByOrFail({ gatewayId: late.id })).openOrderId === order.id,
      5000,
      'holding the order',
    );
    expect(await statusAtService(late.id)).toBe(1);
    // This order's events only: an earlier test's duplicate may still be canceled by a round in the background
    // once its faults are spent (seen on a loaded machine), and its event lands here.
    expect(canceled.filter((c) => c.orderId === order.id)).toEqual([]);
  });
});
