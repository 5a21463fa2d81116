import { startSandbox, SandboxServer } from '../../src/sandbox';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { InvoiceCreationService } from '../../src/checkout/invoice-creation.service';
import { waitFor } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { CheckoutApp, checkout, makeOrder, openCheckoutDatabase, startCheckoutApp } from './support';

// Found by an outside review: attempt 1's create answer landing after an admin marked it not created and the
// customer's retry created attempt 2 left two payable invoices for one order.
describeEachDatabase('checkout: a create answer for an attempt closed meanwhile', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let a: CheckoutApp;
  let b: CheckoutApp;
  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    a = await startCheckoutApp(db, sandbox);
    b = await startCheckoutApp(db, sandbox);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('leaves one payable invoice: the late one is canceled as a duplicate of the retry', async () => {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', latencyMs: 1500, times: 1 });
    const order = makeOrder();
    const first = a.provider.initiatePayment(checkout(order, 'pix'));
    await waitFor(async () => (await a.records(order.id)).length === 1);
    const [rec] = await a.records(order.id);
    await a.app.get(InvoiceCreationService).markNotCreated(rec, 'admin', 'not in the panel');
    const second = await b.provider.initiatePayment(checkout(order, 'pix'));
    expect(second.data.attempt).toBe(2);
    await first;
    await a.notified();
    await b.notified();
    const records = (await a.records(order.id)).sort((x, y) => x.attempt - y.attempt);
    expect(records.map((r) => [r.attempt, r.duplicateOf, r.openOrderId])).toEqual([
      [1, records[1].id, null],
      [2, null, order.id],
    ]);
    const atService = await a.app.get(GatewayClient).listInvoices({ paymentId: order.id });
    const payable = atService.items
      .filter((invoice) => invoice.status.code !== 6)
      .map((invoice) => invoice.id);
    expect(payable).toEqual([records[1].gatewayId]);
  });
});
