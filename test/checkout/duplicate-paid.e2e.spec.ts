import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { InvoicePaymentsAlert, InvoiceRecord } from '../../src/index';
import type { SandboxServer } from '../../src/sandbox';
import { TrackingService } from '../../src/shipping/tracking.service';
import {
  CheckoutApp,
  checkout,
  LATE_CREATE,
  lateFirstInvoice,
  makeOrder,
  openCheckoutScene,
  closeCheckoutScene,
  waitFor,
} from './support';
import { describeEachDatabase, TestDatabase } from '../support/databases';

const CANCEL_LATENCY_MS = 1500;

/**
 * A late first invoice, linked as a duplicate of the order's second (unpaid) one, is paid while its cancel is on the
 * way (the service refuses the cancel, 409, and the module reads it back paid) or after its cancel failed (the sweep
 * then applies the payment). Then "a paid invoice wins and the order follows it" (docs/checkout.md): the order's
 * other invoice is canceled, the paid one's change is no duplicate's, and no "both paid" alert is raised. Paid after
 * the order's own invoice was paid and heard, it is the duplicate: the one to refund.
 */
describeEachDatabase('a duplicate paid before its cancel took effect', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;

  beforeAll(async () => {
    ({ db, sandbox, shop } = await openCheckoutScene(
      kind,
      {
        creationWaitMs: 400,
        unknownOutcomeRecheckMs: 100,
        lateCreationMarginMs: LATE_CREATE.marginMs,
        unresolvedAlertMs: 1200,
      },
      { timeouts: { createMs: LATE_CREATE.createTimeoutMs } },
      { autoProcessCards: false },
    ));
  });
  afterAll(() => closeCheckoutScene({ db, sandbox, shop }));

  const records = (orderId: string) =>
    db.dataSource.getRepository(InvoiceRecord).find({ where: { orderId }, order: { attempt: 'ASC' } });
  const atService = async (orderId: string) =>
    (await shop.gateway.listInvoices({ paymentId: orderId })).items;

  /** An order whose attempt 1 landed after its window: attempt 2 holds it, attempt 1's invoice is at the service. */
  async function lateFirst() {
    const order = makeOrder();
    const { late } = await lateFirstInvoice(
      { sandbox, provider: shop.provider, gateway: shop.gateway },
      order,
    );
    return { order, late };
  }

  it('paid while its cancel is in flight: the order follows it, the other is canceled, no "both paid"', async () => {
    const { order, late } = await lateFirst();

    // The sweep links it (unpaid: a duplicate of attempt 2) and cancels it; the customer pays it meanwhile.
    const slowCancel = sandbox.controls.addFault({
      method: 'DELETE',
      path: '/invoices',
      times: 1,
      latencyMs: CANCEL_LATENCY_MS,
    });
    const sweep = shop.app.get(ReconciliationService).sweep();
    await waitFor(() => !sandbox.controls.faults().some((f) => f.id === slowCancel.id), 5000, 'cancel sent');
    await sandbox.controls.pay(late.id);
    expect((await sweep).error).toBeNull();
    await shop.notified();

    const [first] = await records(order.id);
    expect(first).toMatchObject({ gatewayId: late.id, statusCode: 5 });
    const bothPaid = shop.alerts.filter((a: InvoicePaymentsAlert) => a.kind === 'duplicate_paid');
    const paid = shop.port.changes.find((c) => c.invoiceRecordId === first.id && c.current.code === 5);
    const others = (await atService(order.id)).filter((i) => i.id !== late.id).map((i) => i.status.code);
    // The checkout asked again for this order: it is paid, nothing is left to pay.
    const session = (await shop.provider.initiatePayment(checkout(order, 'pix'))).status;
    expect({
      bothPaid: bothPaid.map((a) => a.message),
      duplicateOf: paid?.duplicateOf,
      others,
      session,
    }).toEqual({
      bothPaid: [],
      duplicateOf: undefined,
      others: [6],
      session: 'captured',
    });
  });

  it('paid after its cancel failed: its change is no duplicate, the other is canceled', async () => {
    const { order, late } = await lateFirst();

    // The sweep links it as a duplicate; its cancel is refused by an outage: it stays payable, marked.
    sandbox.controls.addFault({ method: 'DELETE', path: '/invoices', times: 1, status: 503 });
    expect((await shop.app.get(ReconciliationService).sweep()).error).toBeNull();
    const records = db.dataSource.getRepository(InvoiceRecord);
    const first = await records.findOneByOrFail({ orderId: order.id, attempt: 1 });
    expect(first).toMatchObject({ gatewayId: late.id, statusCode: 1, duplicateOf: expect.any(String) });

    await sandbox.controls.pay(late.id);
    expect((await shop.app.get(ReconciliationService).sweep()).error).toBeNull();
    await shop.notified();

    const paid = shop.port.changes.find((c) => c.invoiceRecordId === first.id && c.current.code === 5);
    const bothPaid = shop.alerts.filter((a: InvoicePaymentsAlert) => a.kind === 'duplicate_paid');
    await waitFor(
      async () => (await records.findOneByOrFail({ id: first.id })).openOrderId === order.id,
      5000,
      'the paid invoice holds the order',
    );
    const others = (await atService(order.id)).filter((i) => i.id !== late.id).map((i) => i.status.code);
    expect({
      paid: paid !== undefined,
      duplicateOf: paid?.duplicateOf,
      bothPaid: bothPaid.length,
      others,
    }).toEqual({
      paid: true,
      duplicateOf: undefined,
      bothPaid: 0,
      others: [6],
    });
    expect((await shop.provider.initiatePayment(checkout(order, 'pix'))).status).toBe('captured');
  });

  it('paid after the order was settled on attempt 2: the late one is the duplicate to refund; tracking on attempt 2', async () => {
    const { order, late } = await lateFirst();
    const second = await db.dataSource
      .getRepository(InvoiceRecord)
      .findOneByOrFail({ openOrderId: order.id });
    // The shopper pays attempt 2: the host hears it and settles the order on it.
    await sandbox.controls.pay(second.gatewayId!);
    await shop.provider.retrievePayment({ data: { invoiceRecordId: second.id } });
    await shop.notified();
    // The late first invoice is paid too (a second PIX code the shopper had); the sweep finds it, twice.
    await sandbox.controls.pay(late.id);
    expect((await shop.app.get(ReconciliationService).sweep()).error).toBeNull();
    expect((await shop.app.get(ReconciliationService).sweep()).error).toBeNull();
    await shop.notified();

    const [first, now] = await records(order.id);
    const paidChanges = shop.port.changes
      .filter((c) => c.orderId === order.id && c.current.code === 5)
      .map((c) => [c.invoiceRecordId, c.duplicateOf ?? null]);
    const bothPaid = shop.alerts.filter(
      (a: InvoicePaymentsAlert) => a.orderId === order.id && a.kind === 'duplicate_paid',
    );
    const tracking = shop.app.get(TrackingService);
    const shipped = await tracking.recordShipment({ orderId: order.id, trackingCode: 'BR123456789BR' });
    const [row] = await tracking.listForOrder(order.id);
    expect({
      first: [first.gatewayId, first.statusCode, first.duplicateOf],
      second: [now.id, now.statusCode, now.duplicateOf, now.openOrderId],
      paidChanges,
      bothPaid: bothPaid.map((a) => [a.invoiceRecordId, a.relatedInvoiceRecordId]),
      shipped: [shipped.outcome, row.invoiceRecordId],
    }).toEqual({
      first: [late.id, 5, second.id],
      second: [second.id, 5, null, order.id],
      // The host heard attempt 2's payment as the order's, the late one's as a duplicate's (it moves nothing).
      paidChanges: [
        [second.id, null],
        [first.id, second.id],
      ],
      bothPaid: [[first.id, second.id]],
      shipped: ['queued', second.id],
    });
    expect(bothPaid[0].message).toContain(`the order follows ${second.gatewayId}: refund ${late.id}`);
  });
});
