import { TransactionalConnection } from '@vendure/core';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { InvoiceRefund } from '../../src/refunds/refund.entity';
import { TEST_CARDS } from '../../src/sandbox';
import { waitFor } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { adminOrder, AdminOrder, cartReadyToPay, startCardPayment } from './flows';
import { REFUND_ORDER } from './graphql';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(120_000);

/**
 * Vendure's `refundOrder` gives the payment handler no key of its own, and each call is a new Vendure Refund: two
 * refunds of the same amount on one order (two items returned one after the other) are two refunds at the service,
 * never one refund answered twice.
 */
describeEachDatabase('InvoicePaymentsPlugin: two refunds of the same amount', (kind) => {
  let env: VendureTestEnv;

  beforeAll(async () => {
    env = await startVendure(kind);
  });
  afterAll(async () => {
    await env?.close();
  });

  const db = () => env.get(TransactionalConnection).rawConnection;

  it('two refunds of R$ 10,00 one right after the other: Vendure and the service both show R$ 20,00', async () => {
    const cart = await cartReadyToPay(env, `same-amount-${kind}@example.com`);
    const session = await startCardPayment(env, TEST_CARDS.approved);
    let order!: AdminOrder;
    await waitFor(
      async () => (order = await adminOrder(env, cart.id)).state === 'PaymentSettled',
      20_000,
      'order paid',
    );
    const line = order.lines[0];
    expect(line.quantity).toBe(2);
    const returnOne = () =>
      env.admin.query(REFUND_ORDER, {
        input: {
          paymentId: order.payments[0].id,
          amount: 1000,
          lines: [{ orderLineId: line.id, quantity: 1 }],
          shipping: 0,
          adjustment: 0,
          reason: 'item returned',
        },
      });

    const first = (await returnOne()).refundOrder;
    expect(first).toMatchObject({ state: 'Settled', total: 1000 });
    // At once after the first: no window of any length may take the second for a repeat of it.
    const second = (await returnOne()).refundOrder;
    expect(second).toMatchObject({ state: 'Settled', total: 1000 });
    expect(second.id).not.toBe(first.id);

    const refunds = (await adminOrder(env, cart.id)).payments[0].refunds;
    const vendureTotal = refunds.filter((r) => r.state === 'Settled').reduce((sum, r) => sum + r.total, 0);
    const atService = env.sandbox.controls.getInvoice(session.invoiceId!)!;
    expect(atService.refunds.map((r) => r.amountCents)).toEqual([1000, 1000]);
    expect(vendureTotal).toBe(2000);
    expect(atService.refunds.reduce((sum, r) => sum + r.amountCents, 0)).toBe(vendureTotal);

    // The module's ledger: two refunds, each under its own key.
    const record = await db().getRepository(InvoiceRecord).findOneByOrFail({ gatewayId: session.invoiceId! });
    const ledger = await db().getRepository(InvoiceRefund).findBy({ invoiceRecordId: record.id });
    expect(ledger.map((r) => [r.state, r.amountCents, r.requestedBy])).toEqual([
      ['succeeded', 1000, 'vendure'],
      ['succeeded', 1000, 'vendure'],
    ]);
    expect(new Set(ledger.map((r) => r.idempotencyKey)).size).toBe(2);
    expect(record.refundedCents).toBe(2000);
  });
});
