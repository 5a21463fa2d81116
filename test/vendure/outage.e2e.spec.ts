import { waitFor } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { adminOrder, AdminOrder, cartReadyToPay, CPF, startPayment } from './flows';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(180_000);

/**
 * A PIX paid while the Vendure server is down, with the plugin's default settings (no reconciliation option): the
 * service tries its webhook once and gives up; after the restart the reconciliation of open invoices finds the
 * payment and the order is settled, with one Payment.
 */
describeEachDatabase('InvoicePaymentsPlugin: paid while Vendure is down', (kind) => {
  let env: VendureTestEnv;

  beforeAll(async () => {
    env = await startVendure(kind, { webhookRetry: { attempts: 1, baseDelayMs: 10, timeoutMs: 2000 } });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('settles the order after the restart, default settings', async () => {
    const cart = await cartReadyToPay(env, `outage-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    expect(session).toMatchObject({ method: 'pix', statusCode: 1, orderState: 'ArrangingPayment' });
    const invoiceId = session.invoiceId as string;

    await env.stop();
    await env.sandbox.controls.pay(invoiceId);
    await env.sandbox.controls.waitForDeliveries();
    const paid = env.sandbox.controls
      .deliveries()
      .filter((d) => d.invoiceId === invoiceId && d.statusCode === 5);
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.every((d) => d.state === 'failed')).toBe(true); // the service gave up: nobody was listening

    await env.start();
    let order!: AdminOrder;
    await waitFor(
      async () => (order = await adminOrder(env, cart.id)).state === 'PaymentSettled',
      60_000,
      `order ${cart.id} PaymentSettled after the restart`,
    );
    expect(order.payments).toHaveLength(1);
    expect(order.payments[0]).toMatchObject({ state: 'Settled', amount: 13480, transactionId: invoiceId });
  });
});
