import { TransactionalConnection } from '@vendure/core';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { InvoiceRefund } from '../../src/refunds/refund.entity';
import { RefundSettlementService } from '../../src/refunds/refund-settlement.service';
import { TEST_CARDS } from '../../src/sandbox';
import { waitFor } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { adminOrder, AdminOrder, cartReadyToPay, startCardPayment } from './flows';
import { REFUND_ORDER } from './graphql';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(120_000);

/**
 * A `refundOrder` whose answer from the service is lost leaves a `Pending` Vendure Refund; the module's refund
 * ledger decides it (here its settlement is triggered directly, as test/refunds does: the worker is slowed down so
 * nothing settles it behind the test's back) and the plugin moves the Refund to `Settled` or `Failed`.
 */
describeEachDatabase('InvoicePaymentsPlugin: a refund whose answer was lost', (kind) => {
  let env: VendureTestEnv;

  beforeAll(async () => {
    env = await startVendure(kind, { plugin: { refunds: { recheckMs: 600_000, maxRecheckMs: 600_000 } } });
  });
  afterAll(async () => {
    await env?.close();
  });

  const db = () => env.get(TransactionalConnection).rawConnection;
  const refundsOf = (order: AdminOrder) => order.payments[0].refunds.map((r) => [r.state, r.total]);
  const notes = (order: AdminOrder) =>
    order.history.items.filter((h) => h.type === 'ORDER_NOTE').map((h) => String(h.data.note));

  /** A card order paid in full (R$ 134,80): its id, Payment and invoice. */
  async function paidCardOrder(email: string) {
    const cart = await cartReadyToPay(env, `${email}-${kind}@example.com`);
    const session = await startCardPayment(env, TEST_CARDS.approved);
    let order!: AdminOrder;
    await waitFor(
      async () => (order = await adminOrder(env, cart.id)).state === 'PaymentSettled',
      20_000,
      'order paid',
    );
    // The API's ids are encoded by Vendure's test id strategy: the record is looked up by its invoice number.
    const record = await db().getRepository(InvoiceRecord).findOneByOrFail({ gatewayId: session.invoiceId! });
    return {
      id: cart.id,
      paymentId: order.payments[0].id,
      invoiceId: session.invoiceId!,
      recordId: record.id,
    };
  }

  const refund = (paymentId: string, amount: number) =>
    env.admin.query(REFUND_ORDER, {
      input: { paymentId, amount, lines: [], shipping: 0, adjustment: 0, reason: 'returned' },
    });

  /** A refund whose request the service carries out, but whose answer (and the read-backs right after) is lost. */
  async function refundWithAnswerLost(paymentId: string, amount: number) {
    env.sandbox.controls.addFault({
      method: 'PUT',
      path: '/invoices',
      status: 503,
      afterProcessing: true,
      latencyMs: 200,
      times: 1,
    });
    const answer = refund(paymentId, amount);
    await waitFor(() => env.sandbox.controls.faults().length === 0, 10_000, 'refund request sent');
    env.sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 50 });
    const { refundOrder } = await answer;
    env.sandbox.controls.clearFaults();
    return refundOrder as { state: string; total: number };
  }

  /** The ledger settles the invoice's unknown refund now (what its worker does on schedule). */
  async function settleLedger(recordId: string, window: 'open' | 'passed' = 'open') {
    const rows = db().getRepository(InvoiceRefund);
    const row = await rows.findOneByOrFail({ invoiceRecordId: recordId, state: 'unknown' });
    if (window === 'passed') await rows.update({ id: row.id }, { settlesAt: new Date(Date.now() - 1000) });
    return env.get(RefundSettlementService).settle(await rows.findOneByOrFail({ id: row.id }));
  }

  it('full refund, answer lost after the service made it: Pending, then Settled by the ledger; refunded once', async () => {
    const order = await paidCardOrder('lost-full');
    const pending = await refundWithAnswerLost(order.paymentId, 13480);
    expect(pending).toMatchObject({ state: 'Pending', total: 13480 });
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.refunds).toHaveLength(1);

    // The service's report (9) reaches the order; the ledger has not confirmed the refund yet: it stays Pending.
    await env.sandbox.controls.waitForDeliveries();
    await waitFor(
      async () =>
        (await db().getRepository(InvoiceRecord).findOneByOrFail({ id: order.recordId })).statusCode === 9,
      20_000,
      'status 9 applied',
    );
    await env.get(StatusChangeDispatcher).drain();
    expect(refundsOf(await adminOrder(env, order.id))).toEqual([['Pending', 13480]]);

    expect(await settleLedger(order.recordId)).toMatchObject({ state: 'succeeded' });
    await waitFor(
      async () => refundsOf(await adminOrder(env, order.id))[0]?.[0] === 'Settled',
      20_000,
      'Vendure refund settled',
    );
    expect(refundsOf(await adminOrder(env, order.id))).toEqual([['Settled', 13480]]);
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.refunds).toHaveLength(1);
  });

  it('a second partial refund (status stays 8) whose answer is lost ends Settled', async () => {
    const order = await paidCardOrder('lost-partial');
    expect((await refund(order.paymentId, 3000)).refundOrder).toMatchObject({
      state: 'Settled',
      total: 3000,
    });
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.statusCode).toBe(8);

    const pending = await refundWithAnswerLost(order.paymentId, 2000);
    expect(pending).toMatchObject({ state: 'Pending', total: 2000 });
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.statusCode).toBe(8);

    expect(await settleLedger(order.recordId)).toMatchObject({ state: 'succeeded' });
    await waitFor(
      async () => refundsOf(await adminOrder(env, order.id))[1]?.[0] === 'Settled',
      20_000,
      'second Vendure refund settled',
    );
    expect(refundsOf(await adminOrder(env, order.id))).toEqual([
      ['Settled', 3000],
      ['Settled', 2000],
    ]);
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.refunds).toHaveLength(2);
  });

  it('another refundOrder while one is being confirmed settles the first (read back first), then refunds', async () => {
    const order = await paidCardOrder('lost-then-another');
    expect(await refundWithAnswerLost(order.paymentId, 2000)).toMatchObject({ state: 'Pending' });
    const { refundOrder } = await refund(order.paymentId, 1000);
    expect(refundOrder).toMatchObject({ state: 'Settled', total: 1000 });
    await waitFor(
      async () => refundsOf(await adminOrder(env, order.id))[0]?.[0] === 'Settled',
      20_000,
      'first Vendure refund settled',
    );
    expect(refundsOf(await adminOrder(env, order.id))).toEqual([
      ['Settled', 2000],
      ['Settled', 1000],
    ]);
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.refunds).toHaveLength(2);
  });

  it('a refund the service never made (503 before processing): Pending, then Failed with a note', async () => {
    const order = await paidCardOrder('not-made');
    env.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', status: 503, times: 1 });
    const { refundOrder } = await refund(order.paymentId, 4000);
    // The read-back shows no change, but the request could still land: being confirmed.
    expect(refundOrder).toMatchObject({ state: 'Pending', total: 4000 });

    expect(await settleLedger(order.recordId, 'passed')).toMatchObject({ state: 'failed' });
    await waitFor(
      async () => refundsOf(await adminOrder(env, order.id))[0]?.[0] === 'Failed',
      20_000,
      'Vendure refund failed',
    );
    const after = await adminOrder(env, order.id);
    expect(refundsOf(after)).toEqual([['Failed', 4000]]);
    expect(notes(after)).toContainEqual(expect.stringMatching(/R\$ 40\.00 .* was not made/));
    expect(env.sandbox.controls.getInvoice(order.invoiceId)!.refunds).toHaveLength(0);
  });
});
