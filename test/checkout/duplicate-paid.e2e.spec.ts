import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { InvoicePaymentsAlert, InvoiceRecord, PaymentBeingConfirmedError } from '../../src/index';
import type { SandboxServer } from '../../src/sandbox';
import { CheckoutApp, checkout, makeOrder, openCheckoutScene, closeCheckoutScene, waitFor } from './support';
import { describeEachDatabase, TestDatabase } from '../support/databases';

const CREATE_TIMEOUT_MS = 250;
const MARGIN_MS = 1000;
const WINDOW_MS = CREATE_TIMEOUT_MS + MARGIN_MS;
const CANCEL_LATENCY_MS = 1500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A late first invoice, linked as a duplicate of the order's second (unpaid) one, is paid while its cancel is on the
 * way (the service refuses the cancel, 409, and the module reads it back paid) or after its cancel failed (the sweep
 * then applies the payment). Then "a paid invoice wins and the order follows it" (docs/checkout.md): the order's
 * other invoice is canceled, the paid one's change is no duplicate's, and no "both paid" alert is raised.
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
        lateCreationMarginMs: MARGIN_MS,
        unresolvedAlertMs: 1200,
      },
      { timeouts: { createMs: CREATE_TIMEOUT_MS } },
      { autoProcessCards: false },
    ));
  });
  afterAll(() => closeCheckoutScene({ db, sandbox, shop }));

  const records = (orderId: string) =>
    db.dataSource.getRepository(InvoiceRecord).find({ where: { orderId }, order: { attempt: 'ASC' } });
  const atService = async (orderId: string) =>
    (await shop.gateway.listInvoices({ paymentId: orderId })).items;

  async function payUntilCreated(order: ReturnType<typeof makeOrder>) {
    for (let i = 0; i < 40; i++) {
      try {
        return await shop.provider.initiatePayment(checkout(order, 'pix'));
      } catch (err) {
        if (!(err instanceof PaymentBeingConfirmedError)) throw err;
        await sleep(Math.min(err.retryAfterSeconds * 1000, 150));
      }
    }
    throw new Error('never created');
  }

  /** An order whose attempt 1 landed after its window: attempt 2 holds it, attempt 1's invoice is at the service. */
  async function lateFirstInvoice() {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, latencyMs: WINDOW_MS + 700 });
    const order = makeOrder();
    const second = await payUntilCreated(order);
    expect(second.data).toMatchObject({ attempt: 2, statusCode: 1 });
    await waitFor(async () => (await atService(order.id)).length === 2, 5000);
    const late = (await atService(order.id)).find((i) => i.referrer?.endsWith(`:${order.id}-1`))!;
    return { order, late };
  }

  it('paid while its cancel is in flight: the order follows it, the other is canceled, no "both paid"', async () => {
    const { order, late } = await lateFirstInvoice();

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
    const { order, late } = await lateFirstInvoice();

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
});
