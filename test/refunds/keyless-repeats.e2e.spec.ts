import { httpAnswerOf } from '../../src/errors/http-answers';
import { InvoicePaymentsError } from '../../src/domain/invoice-payments.error';
import { InvoiceRefund } from '../../src/index';
import { RefundRepeatedError } from '../../src/refunds/errors';
import { RefundStore } from '../../src/refunds/refund.store';
import { adminAuth } from '../settings/support';
import { describeEachDatabase } from '../support/databases';
import { A, RefundRig, startRefundRig } from './support';

const TEN_MINUTES = 600_000;

/**
 * A refund asked for without an idempotency key, of the same amount as a refund of the invoice asked for within
 * the repeat window, is refused (409 `refund_repeated`, naming the earlier refund): never a 200 for a refund that
 * was not made. Nothing is sent; with a key of its own, the same amount is a new refund.
 */
describeEachDatabase('refunds: the same amount without a key', (kind) => {
  let rig: RefundRig;

  beforeAll(async () => {
    rig = await startRefundRig(kind);
  });
  afterAll(() => rig?.close());
  afterEach(() => jest.restoreAllMocks());

  const adminRefund = (i: number, id: string, body: Record<string, unknown>) =>
    rig.apps[i].http().post(`${A}/invoices/${id}/refund`).set(adminAuth).send(body);

  it('a second refund of R$ 10,00 without a key: 409 naming the first, when it was made, how to make another', async () => {
    const inv = await rig.paidInvoice();
    const first = await adminRefund(0, inv.id, { amountCents: 1000 });
    expect(first.status).toBe(200);
    const made = first.body.refund as { id: string; createdAt: string };
    const before = rig.refundRequests();

    const second = await adminRefund(1, inv.id, { amountCents: 1000 });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      error: 'refund_repeated',
      refundId: made.id,
      refundState: 'succeeded',
      refundCreatedAt: made.createdAt,
      sameAmountAllowedAt: new Date(Date.parse(made.createdAt) + TEN_MINUTES).toISOString(),
    });
    expect(second.body.message).toContain(made.createdAt);
    expect(second.body.message).toMatch(/nothing was sent.*pass an idempotency key/);
    expect(rig.refundRequests()).toBe(before);
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    expect((await rig.ledger(inv.id)).map((r) => r.state)).toEqual(['succeeded']);
    expect(await rig.record(inv.id)).toMatchObject({ refundedCents: 1000 });

    // Another amount is another refund; the same amount with a key of its own too.
    expect((await adminRefund(0, inv.id, { amountCents: 500 })).status).toBe(200);
    const keyed = await adminRefund(1, inv.id, { amountCents: 1000, idempotencyKey: `second-${inv.id}` });
    expect(keyed.status).toBe(200);
    expect(rig.madeAtService(inv.gatewayId)).toBe(3);
    expect(await rig.record(inv.id)).toMatchObject({ refundedCents: 2500 });
  });

  it('through the provider (an in-process host): RefundRepeatedError, a domain error the HTTP edges answer 409; nothing sent', async () => {
    const inv = await rig.paidInvoice();
    const refund = () =>
      rig.apps[0].provider.refundPayment({ data: { invoiceRecordId: inv.id }, amount: 700 });
    await refund();
    const before = rig.refundRequests();
    const err = await refund().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RefundRepeatedError);
    expect(err).toBeInstanceOf(InvoicePaymentsError);
    expect(httpAnswerOf(err)).toMatchObject({ status: 409, body: { error: 'refund_repeated' } });
    expect((err as RefundRepeatedError).refund).toMatchObject({ amountCents: 700, state: 'succeeded' });
    expect(rig.refundRequests()).toBe(before);
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
  });

  it('once the window has passed, or when the earlier one failed, the same amount without a key is a new refund', async () => {
    const inv = await rig.paidInvoice();
    expect((await adminRefund(0, inv.id, { amountCents: 300 })).status).toBe(200);
    const rows = rig.db.dataSource.getRepository(InvoiceRefund);
    await rows.update({ invoiceRecordId: inv.id }, { createdAt: new Date(Date.now() - TEN_MINUTES - 1000) });
    expect((await adminRefund(1, inv.id, { amountCents: 300 })).status).toBe(200);
    expect(rig.madeAtService(inv.gatewayId)).toBe(2);

    // The service refuses the next one: it failed, so nothing was refunded and a repeat is not refused.
    rig.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', status: 400, times: 1 });
    expect((await adminRefund(0, inv.id, { amountCents: 200 })).status).toBe(400);
    const again = await adminRefund(0, inv.id, { amountCents: 200 });
    expect(again.status).toBe(200);
    expect(rig.madeAtService(inv.gatewayId)).toBe(3);
    rig.sandbox.controls.clearFaults();
  });

  it('a keyless twin made between the look and the claim: the claimed row is refused too, never sent', async () => {
    const inv = await rig.paidInvoice();
    const first = await adminRefund(0, inv.id, { amountCents: 400 });
    expect(first.status).toBe(200);
    // The first look of the next call misses the refund above, as it would had that refund been made (and settled)
    // between this call's look and its claim.
    const store = rig.apps[1].app.get(RefundStore);
    const look = store.latestSimilar.bind(store);
    jest.spyOn(store, 'latestSimilar').mockImplementationOnce(async () => null);
    const before = rig.refundRequests();

    const second = await adminRefund(1, inv.id, { amountCents: 400 });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'refund_repeated', refundId: first.body.refund.id });
    expect(rig.refundRequests()).toBe(before);
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    const ledger = await rig.ledger(inv.id);
    expect(ledger.map((r) => r.state)).toEqual(['succeeded', 'failed']);
    expect(ledger[1].reason).toContain(`repeats refund ${first.body.refund.id}`);
    // The slot is free again: a refund with a key goes through.
    expect(await look(inv.id, 400, new Date(0))).toMatchObject({ id: first.body.refund.id });
    expect((await adminRefund(1, inv.id, { amountCents: 400, idempotencyKey: `k-${inv.id}` })).status).toBe(
      200,
    );
    expect(rig.madeAtService(inv.gatewayId)).toBe(2);
  });
});
