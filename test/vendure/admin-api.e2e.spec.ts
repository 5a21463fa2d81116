import { TEST_CARDS } from '../../src/sandbox';
import { waitFor } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { adminOrder, cartReadyToPay, CPF, startCardPayment, startPayment } from './flows';
import { gqlWith, REFUND_ORDER } from './graphql';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(120_000);

const INVOICES = gqlWith(`
  query ($orderId: ID!) {
    invoicePaymentsForOrder(orderId: $orderId) {
      id method invoiceNumber statusCode statusName statusTone orderPaymentStatus currencyCode
      amount paid refunded refundable dueDate payBy installments
      card { brand last4 }
      pixPayload pixImage billetLine billetUrl createdAt
      refunds { id amount state createdAt }
      tracking { code status }
      alerts { kind message acknowledged }
    }
  }
`);

/** The Admin API's `invoicePaymentsForOrder`, which the dashboard's order page block reads. */
describeEachDatabase('InvoicePaymentsPlugin: the Admin API order query', (kind) => {
  let env: VendureTestEnv;

  beforeAll(async () => {
    env = await startVendure(kind);
  });
  afterAll(async () => {
    await env?.close();
  });

  const invoicesOf = async (orderId: string) =>
    (await env.admin.query(INVOICES, { orderId })).invoicePaymentsForOrder as Array<Record<string, unknown>>;

  async function settled(id: string) {
    await waitFor(async () => (await adminOrder(env, id)).state === 'PaymentSettled', 20_000, 'order paid');
    return adminOrder(env, id);
  }

  it('an open PIX invoice: number, pending, due date, code and QR; nothing refundable', async () => {
    const cart = await cartReadyToPay(env, `admin-pix-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    const [invoice] = await invoicesOf(cart.id);
    expect(invoice).toMatchObject({
      method: 'pix',
      invoiceNumber: session.invoiceId,
      statusCode: 1,
      statusName: 'Awaiting payment',
      statusTone: 'open',
      orderPaymentStatus: 'awaiting',
      currencyCode: 'BRL',
      amount: 13480,
      refunded: 0,
      refundable: 0,
      card: null,
      refunds: [],
    });
    expect(invoice.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(invoice.pixPayload).toBe(session.pix?.payload);
    expect(invoice.pixImage).toBe(session.pix?.image);

    await env.sandbox.controls.pay(session.invoiceId!);
    await settled(cart.id);
    const [paid] = await invoicesOf(cart.id);
    expect(paid).toMatchObject({
      statusCode: 5,
      statusTone: 'paid',
      orderPaymentStatus: 'captured',
      paid: 13480,
      refundable: 13480,
      // Paid: nothing left to pay with, so no code an operator could send a customer.
      payBy: null,
      pixPayload: null,
      pixImage: null,
    });
  });

  it('a card invoice partly refunded: brand and last 4, the refund, what is still refundable', async () => {
    const cart = await cartReadyToPay(env, `admin-card-${kind}@example.com`);
    const session = await startCardPayment(env, TEST_CARDS.approved);
    const order = await settled(cart.id);
    const { refundOrder } = await env.admin.query(REFUND_ORDER, {
      input: {
        paymentId: order.payments[0].id,
        amount: 3000,
        lines: [],
        shipping: 0,
        adjustment: 0,
        reason: 'returned',
      },
    });
    expect(refundOrder).toMatchObject({ state: 'Settled', total: 3000 });
    const [invoice] = await invoicesOf(cart.id);
    expect(invoice).toMatchObject({
      method: 'card',
      invoiceNumber: session.invoiceId,
      statusCode: 8,
      statusTone: 'open',
      card: { brand: session.card?.brand, last4: TEST_CARDS.approved.slice(-4) },
      refunded: 3000,
      refundable: 10480,
      refunds: [expect.objectContaining({ amount: 3000, state: 'succeeded' })],
    });
    expect(session.card?.brand).toBeTruthy();
  });

  it('an order with no invoice answers an empty list; an unknown order is not found', async () => {
    const cart = await cartReadyToPay(env, `admin-none-${kind}@example.com`);
    expect(await invoicesOf(cart.id)).toEqual([]);
    await expect(invoicesOf('T_999999')).rejects.toThrow(/No Order with the id/);
  });

  it('needs ReadOrder: an anonymous caller is refused', async () => {
    const cart = await cartReadyToPay(env, `admin-anon-${kind}@example.com`);
    await env.admin.asAnonymousUser();
    try {
      await expect(invoicesOf(cart.id)).rejects.toThrow(/not currently authorized/);
    } finally {
      await env.admin.asSuperAdmin();
    }
  });
});
