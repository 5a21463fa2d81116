import { InvoiceRefund, RefundBeingConfirmedError, RefundInProgressError } from '../../src/index';
import { refundForMedusa } from '../../src/medusa/refund';
import { RefundFailedError } from '../../src/refunds/errors';
import { RefundService } from '../../src/refunds/refund.service';
import { waitFor } from '../checkout/support';
import { startRefundRig, type RefundRig } from '../refunds/support';
import { describeEachDatabase } from '../support/databases';

/**
 * The Medusa provider's refunds (`refundForMedusa`, behind `refundPayment`), over HTTP against the sandbox. Medusa
 * keeps no refund pending: on a provider error its Payment module deletes the refund it recorded (`deleteRefunds`),
 * and the operator's next click is a new refund with a new id, so a new key. A refund whose answer was lost is
 * therefore answered only once the ledger knows whether it was made, within the refund's window.
 */
describeEachDatabase('Medusa refunds', (kind) => {
  let rig: RefundRig;

  beforeAll(async () => {
    // The window of a refund: 800 ms write timeout + 300 ms late margin.
    rig = await startRefundRig(kind, {
      timeouts: { defaultMs: 800 },
      refunds: { recheckMs: 3000, pollIntervalMs: 100, lateMarginMs: 300 },
    });
  });
  afterAll(() => rig?.close());
  afterEach(() => rig.sandbox.controls.clearFaults());

  /** Medusa's `refundPayment` of `amount` (major units) as its Payment module calls it: its refund's id as the key. */
  const medusaRefund = (invoiceRecordId: string, amount: number, refundId: string) =>
    refundForMedusa(
      { provider: rig.apps[0].provider, refunds: rig.apps[0].app.get(RefundService) },
      { data: { invoiceRecordId }, amount, context: { idempotency_key: refundId } },
    );
  const outcome = <T>(p: Promise<T>) =>
    p.then(
      () => null,
      (e: unknown) => e,
    );

  /** The next refund request takes `effect`; once it left, the invoice's read-backs fail (`reads` of them, or all). */
  async function loseAnswer(effect: Record<string, unknown>, reads?: number): Promise<void> {
    rig.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', latencyMs: 200, times: 1, ...effect });
    await waitFor(() => rig.sandbox.controls.faults().length === 0, 10_000, 'refund request sent');
    rig.sandbox.controls.addFault({
      method: 'GET',
      path: '/invoices',
      status: 503,
      ...(reads ? { times: reads } : {}),
    });
  }

  it.each([
    ['answered 503 after processing', { afterProcessing: true, status: 503 }],
    ['timed out after processing', { afterProcessing: true, hang: true }],
  ])(
    'a refund %s, its read-back failing too: Medusa is answered made, once the ledger confirmed it',
    async (_, effect) => {
      const inv = await rig.paidInvoice();
      const answer = medusaRefund(inv.id, 50, `refund_${inv.id}_a`);
      await loseAnswer(effect, 1);
      // Medusa keeps its refund: never an error for a refund the service made (its next click would refund again).
      const out = await answer;
      expect(out.data).toMatchObject({ invoiceRecordId: inv.id, refundedCents: 5000, statusCode: 8 });
      expect((await rig.ledger(inv.id)).map((r) => r.state)).toEqual(['succeeded']);
      expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    },
  );

  it('a refund the service never made (refused before processing, answer lost): Medusa is told not made', async () => {
    const inv = await rig.paidInvoice();
    rig.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', status: 503, times: 1 });
    const err = await outcome(medusaRefund(inv.id, 50, `refund_${inv.id}_a`));
    // Only once the request could no longer land: its window passed with the service's total unchanged.
    expect(err).toBeInstanceOf(RefundFailedError);
    expect((err as RefundFailedError).refund.reason).toMatch(/not made/);
    expect(rig.madeAtService(inv.gatewayId)).toBe(0);
    // Medusa deleted its refund; the operator's next click, a new Medusa refund, is made.
    await medusaRefund(inv.id, 50, `refund_${inv.id}_b`);
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
  });

  it('still unknown when its window closed: the same error, and a new Medusa refund of the invoice is refused until it settles', async () => {
    const inv = await rig.paidInvoice();
    const answer = outcome(medusaRefund(inv.id, 50, `refund_${inv.id}_a`));
    await loseAnswer({ afterProcessing: true, status: 503 });
    const err = await answer;
    expect(err).toBeInstanceOf(RefundBeingConfirmedError);
    const first = (err as RefundBeingConfirmedError).refund;
    // The operator clicks again in Medusa's admin (a new refund, a new key): refused, naming the first; nothing sent.
    const before = rig.refundRequests();
    const again = await outcome(medusaRefund(inv.id, 50, `refund_${inv.id}_b`));
    expect(again).toBeInstanceOf(RefundInProgressError);
    expect((again as RefundInProgressError).refund.id).toBe(first.id);
    expect(rig.refundRequests()).toBe(before);
    // The service answers again: the ledger settles it (due now rather than after its backoff), made once.
    rig.sandbox.controls.clearFaults();
    await rig.db.dataSource
      .getRepository(InvoiceRefund)
      .update({ id: first.id }, { nextCheckAt: new Date() });
    await waitFor(async () => (await rig.ledger(inv.id))[0]?.state === 'succeeded', 10_000, 'settled');
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    expect((await rig.ledger(inv.id)).map((r) => r.state)).toEqual(['succeeded']);
  });
});
