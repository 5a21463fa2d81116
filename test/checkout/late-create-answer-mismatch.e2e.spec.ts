import { INestApplication } from '@nestjs/common';
import { InvoicePaymentProvider, InvoiceRecord, type InitiatePaymentOutput } from '../../src/index';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase, sandboxGateway } from './support';
import { waitFor } from '../support/app';
import { RootApp, startRootApp } from '../support/root-app';
import { describeEachDatabase, TestDatabase } from '../support/databases';

const CREATE_TIMEOUT_MS = 250;
/** The checkout's lookup after the lost answer is answered this late: the webhook is applied meanwhile. */
const LOOKUP_LATENCY_MS = 2_000;

/**
 * A PIX invoice whose create answer is lost is paid short before the checkout's lookup answers: the webhook links it
 * and flags the amount; the checkout's late answer must not clear that flag (the session would say "captured").
 */
describeEachDatabase('an underpaid invoice found by the checkout after its webhook', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: RootApp;
  let app: INestApplication;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    host = await startRootApp(db, sandbox, {
      gateway: { ...sandboxGateway(sandbox.url), timeouts: { createMs: CREATE_TIMEOUT_MS } },
      checkout: {
        creationWaitMs: 10_000,
        unknownOutcomeRecheckMs: 100,
        lateCreationMarginMs: 10_000,
      },
    });
    app = host.app;
  });
  afterAll(async () => {
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('stays requires_more with amountMismatch once the checkout settles', async () => {
    const order = makeOrder();
    // Its deliveries (created, paid) held until the checkout's lookup is on its way.
    sandbox.controls.setWebhookFaults({ hold: true });
    // Created at the service, its answer never comes; the lookup by referrer that follows is slow.
    sandbox.controls.addFault({
      method: 'POST',
      path: '/invoices',
      times: 1,
      hang: true,
      afterProcessing: true,
    });
    const slowLookup = sandbox.controls.addFault({
      method: 'GET',
      path: '/invoices',
      times: 1,
      latencyMs: LOOKUP_LATENCY_MS,
    });
    const session = app
      .get(InvoicePaymentProvider)
      .initiatePayment(checkout(order, 'pix'))
      .then(
        (out) => out,
        (err: unknown) => err,
      );
    // The checkout's lookup is in flight (it took the slow answer).
    await waitFor(() => !sandbox.controls.faults().some((f) => f.id === slowLookup.id), 5_000, 'lookup sent');
    const [invoice] = (await app.get(GatewayClient).listInvoices({ paymentId: order.id })).items;
    await sandbox.controls.pay(invoice.id, { amountCents: order.total - 100 });
    sandbox.controls.setWebhookFaults({});
    sandbox.controls.releaseWebhooks();

    const records = db.dataSource.getRepository(InvoiceRecord);
    await waitFor(
      async () => (await records.findOneBy({ orderId: order.id }))?.amountMismatch === true,
      LOOKUP_LATENCY_MS - 300,
      'the webhook applied the short payment',
    );
    const out = (await session) as InitiatePaymentOutput;
    const record = await records.findOneByOrFail({ orderId: order.id });
    expect(record).toMatchObject({ gatewayId: invoice.id, statusCode: 5, paidCents: order.total - 100 });
    expect(out.status).toBe('requires_more');
    expect(record.amountMismatch).toBe(true);
    const status = await app
      .get(InvoicePaymentProvider)
      .getPaymentStatus({ data: { invoiceRecordId: out.id } });
    expect(status.status).toBe('requires_more');
  });
});
