import { DEFAULT_WIRE_PROFILE } from '../../src/gateway/wire-profile';
import { randomUUID } from 'node:crypto';
import {
  InvoiceCreationFailedError,
  InvoiceCreationUnresolvedError,
  InvoiceRecord,
  OpenInvoiceConflictError,
  PaymentBeingConfirmedError,
} from '../../src/index';
import { mapOrderToInvoice } from '../../src/checkout/order-mapping';
import { withReferrer } from '../../src/core/attempt-claim';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { waitFor } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  CheckoutApp,
  checkout,
  makeOrder,
  openCheckoutDatabase,
  RewritingProxy,
  startCheckoutApp,
  startRewritingProxy,
  referrerOf,
} from './support';
import { resolveCheckoutOptions } from '../../src/options/checkout.options';
import { CLOCK } from '../../src/domain/clock';
import { ManualClock } from '../support/clock';

/**
 * What happens when the create request's outcome is not a plain answer: the invoice is looked up by its referrer
 * before anything is created again, so the customer never gets two invoices to pay for one order.
 */
describeEachDatabase('invoice creation when the outcome is unknown or refused', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    shop = await startCheckoutApp(
      db,
      sandbox,
      // A request may land until 1000 ms (client timeout) + 2000 ms (margin) after it left: a busy machine's sandbox
      // stores a request within that (with 250 + 1000 ms, a slow first request landed after its window at load 20).
      { creationWaitMs: 6000, unknownOutcomeRecheckMs: 200, lateCreationMarginMs: 2000 },
      {
        timeouts: { createMs: 1000 },
      },
    );
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });
  afterEach(() => sandbox.controls.clearFaults());

  it('a 5xx after the service stored the invoice: found by its referrer, not created twice', async () => {
    sandbox.controls.addFault({
      method: 'POST',
      path: '/invoices',
      status: 500,
      afterProcessing: true,
      times: 1,
    });
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(out.data).toMatchObject({
      creationState: 'created',
      statusCode: 1,
      referrer: referrerOf(order.id, 1),
    });
    expect(out.data.pix?.payload).toBeTruthy();
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('a dropped connection before the service stored anything: not found until it could no longer land, then a new attempt', async () => {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', dropConnection: true, times: 1 });
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'billet'));
    // The first attempt is closed as not created; the next has its own referrer, so a late first one is told apart.
    expect(out.data).toMatchObject({
      creationState: 'created',
      attempt: 2,
      referrer: referrerOf(order.id, 2),
    });
    const [first] = await shop.records(order.id);
    expect(first).toMatchObject({ creationState: 'failed', openOrderId: null, gatewayId: null });
    expect(first.failureReason).toMatch(/not found at the service/);
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('a timeout while a slow service is still storing it: the re-check finds it, no second invoice', async () => {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', latencyMs: 1500, times: 1 });
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(out.data).toMatchObject({ creationState: 'created', attempt: 1 });
    // Nothing the attempt sent can land after its settlesAt (the module's own bound): count once it has passed.
    const [record] = await shop.records(order.id);
    await waitFor(() => Date.now() > record.settlesAt!.getTime(), 10_000, "the attempt's window passed");
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('when the lookup fails too, the attempt stays unknown and blocks the order until resolved', async () => {
    sandbox.controls.addFault({
      method: 'POST',
      path: '/invoices',
      status: 500,
      afterProcessing: true,
      times: 1,
    });
    sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 1 });
    const order = makeOrder();
    await expect(shop.provider.initiatePayment(checkout(order, 'pix'))).rejects.toThrow(
      InvoiceCreationUnresolvedError,
    );
    const [record] = await shop.records(order.id);
    expect(record).toMatchObject({ creationState: 'unknown', openOrderId: order.id });
    // Never a second payable invoice: another method is refused while the first may exist.
    await expect(shop.provider.initiatePayment(checkout(order, 'billet'))).rejects.toThrow(
      OpenInvoiceConflictError,
    );

    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(out.id).toBe(record.id);
    expect(out.data).toMatchObject({ creationState: 'created', statusCode: 1 });
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('a claim left pending by a crashed process is taken over and resolved by its referrer', async () => {
    const order = makeOrder();
    const request = checkout(order, 'pix');
    const referrer = `${order.id}-1`;
    const mapped = mapOrderToInvoice(
      request,
      resolveCheckoutOptions(),
      Date.now(),
      DEFAULT_WIRE_PROFILE.timeZone,
    );
    const invoice = await shop.gateway.createInvoice(withReferrer(mapped.params, referrer)); // it did reach the service
    const old = new Date(Date.now() - 10 * 60_000);
    const rows = db.dataSource.getRepository(InvoiceRecord);
    await rows.insert(
      rows.create({
        id: randomUUID(),
        orderId: order.id,
        openOrderId: order.id,
        attempt: 1,
        referrer,
        creationState: 'pending',
        method: 'pix',
        currency: 'BRL',
        amountCents: order.total,
        installments: 1,
        createdAt: old,
        updatedAt: old,
      }),
    );
    const out = await shop.provider.initiatePayment(request);
    expect(out.data).toMatchObject({ gatewayId: invoice.id, creationState: 'created', statusCode: 1 });
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('a fresh claim held by another process makes the caller wait, then give up without creating', async () => {
    const order = makeOrder();
    const rows = db.dataSource.getRepository(InvoiceRecord);
    const now = new Date();
    await rows.insert(
      rows.create({
        id: randomUUID(),
        orderId: order.id,
        openOrderId: order.id,
        attempt: 1,
        referrer: `${order.id}-1`,
        creationState: 'pending',
        method: 'pix',
        currency: 'BRL',
        amountCents: order.total,
        installments: 1,
        createdAt: now,
        updatedAt: now,
      }),
    );
    const error = await shop.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentBeingConfirmedError);
    expect(error).toMatchObject({ retryAfterSeconds: 2 });
    expect((error as Error).message).toMatch(/another request is creating it/);
    expect(await shop.invoicesAtService(order.id)).toBe(0);
  });

  it('a refusal (422) closes the attempt with the service fields; the next attempt goes through', async () => {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', status: 422, times: 1 });
    const order = makeOrder();
    const error = await shop.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvoiceCreationFailedError);
    expect((error as Error).message).not.toContain('sandbox-token');
    const [failed] = await shop.records(order.id);
    expect(failed).toMatchObject({ creationState: 'failed', openOrderId: null });

    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(out.data).toMatchObject({
      attempt: 2,
      referrer: referrerOf(order.id, 2),
      creationState: 'created',
    });
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });
});

describeEachDatabase('an unknown creation outcome on the module clock', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    const options = { creationWaitMs: 6000, unknownOutcomeRecheckMs: 200, lateCreationMarginMs: 2000 };
    shop = await startCheckoutApp(db, sandbox, options, { timeouts: { createMs: 1000 } }, [[CLOCK, clock]]);
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('cancelPayment on an unknown attempt that never reached the service closes it without a request', async () => {
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', dropConnection: true, times: 1 });
    sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 1 });
    const order = makeOrder();
    await expect(shop.provider.initiatePayment(checkout(order, 'pix'))).rejects.toThrow(
      PaymentBeingConfirmedError,
    );
    const [record] = await shop.records(order.id);
    // While the request could still land, not finding it proves nothing: no cancel on a guess.
    await expect(shop.provider.cancelPayment({ data: { invoiceRecordId: record.id } })).rejects.toThrow(
      /being confirmed, retry in \d+ s/,
    );
    clock.set(record.settlesAt!.getTime() + 1); // the attempt's window has passed
    const out = await shop.provider.cancelPayment({ data: { invoiceRecordId: record.id } });
    expect(out.data).toMatchObject({ creationState: 'failed', sessionStatus: 'error' });
    expect((await shop.records(order.id))[0].openOrderId).toBeNull();
    expect(await shop.invoicesAtService(order.id)).toBe(0);
  });
});

describeEachDatabase('a gross amount that differs from the order total', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let proxy: RewritingProxy;
  let shop: CheckoutApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    // A real HTTP hop that adds R$ 1,00 to the gross of created invoices, as a service with other rules would.
    proxy = await startRewritingProxy(sandbox.url, (json) => {
      json.invoice.amount.gross += 1;
    });
    const url = proxy.url;
    shop = await startCheckoutApp(db, { ...sandbox, url });
  });
  afterAll(async () => {
    await shop?.close();
    await proxy?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('is flagged on the invoice and raised as an alert', async () => {
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(out.data.amountMismatch).toBe(true);
    expect((await shop.records(order.id))[0].grossCents).toBe(12090);
    expect(shop.alerts).toEqual([
      expect.objectContaining({ kind: 'amount_mismatch', orderId: order.id, invoiceRecordId: out.id }),
    ]);
    expect(shop.alerts[0].message).toMatch(/120\.90.*119\.90/);
  });
});
