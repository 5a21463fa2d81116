import { TEST_CARDS } from '../../src/sandbox';
import { waitFor } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { adminOrder, cartReadyToPay, CPF, gqlWith, startPayment } from './flows';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(120_000);

describeEachDatabase('InvoicePaymentsPlugin in a real Vendure server', (kind) => {
  let env: VendureTestEnv;

  beforeAll(async () => {
    env = await startVendure(kind);
  });
  afterAll(async () => {
    await env?.close();
  });

  const paymentsOf = async (id: string) => (await adminOrder(env, id)).payments;

  it('PIX: the storefront gets the QR code; the paid webhook settles the order with one Payment', async () => {
    const cart = await cartReadyToPay(env, `pix-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    // 2 × R$ 59,90 + R$ 15,00 shipping, prices with tax.
    expect(session).toMatchObject({ method: 'pix', statusCode: 1, amount: 13480, orderState: 'ArrangingPayment' });
    expect(session.pix?.payload).toMatch(/^000201/);
    expect(session.pix?.image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

    await env.sandbox.controls.pay(session.invoiceId!);
    await waitFor(async () => (await adminOrder(env, cart.id)).state === 'PaymentSettled', 8_000, 'PaymentSettled').catch(async (e) => { console.log(JSON.stringify(env.sandbox.controls.deliveries().map(d => ({s: d.statusCode, st: d.state, a: d.attempts})), null, 1)); console.log(JSON.stringify(await adminOrder(env, cart.id), null, 1)); throw e; });
    const payments = await paymentsOf(cart.id);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      state: 'Settled',
      amount: 13480,
      transactionId: session.invoiceId,
    });
  });
});

export { TEST_CARDS, gqlWith };
