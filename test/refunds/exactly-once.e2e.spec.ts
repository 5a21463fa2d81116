import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  InvoicePaymentsEvents,
  InvoiceRefund,
  RefundBeingConfirmedError,
  RefundInProgressError,
  type RefundSettled,
} from '../../src/index';
import { waitFor } from '../checkout/support';
import { adminAuth } from '../settings/support';
import { describeEachDatabase } from '../support/databases';
import { A, RefundRig, startRefundRig } from './support';

const FULL = 11990;

/**
 * Refunds exactly once, over HTTP against the sandbox, with two app instances of one store on one database: however
 * many concurrent requests, through whichever entry point, one refund request reaches the service; a refund whose
 * answer is lost after the service made it is confirmed by reading the invoice back, never sent again.
 */
describeEachDatabase('refunds: exactly once', (kind) => {
  let rig: RefundRig;

  beforeAll(async () => {
    rig = await startRefundRig(kind, {
      timeouts: { defaultMs: 800 },
      refunds: { recheckMs: 3000, pollIntervalMs: 100, lateMarginMs: 300 },
    });
  });
  afterAll(() => rig?.close());
  afterEach(() => rig.sandbox.controls.clearFaults());

  /** `RefundSettled` events of an invoice, from both instances, as they are emitted. */
  const settledEvents = (invoiceRecordId: string): RefundSettled[] => {
    const seen: RefundSettled[] = [];
    for (const app of rig.apps) {
      app.app.get(EventEmitter2).on(InvoicePaymentsEvents.RefundSettled, (e: RefundSettled) => {
        if (e.invoiceRecordId === invoiceRecordId) seen.push(e);
      });
    }
    return seen;
  };

  /** A full refund through the admin API of instance `i`, answered as it was. */
  const adminRefund = (i: number, id: string, body: Record<string, unknown> = { amountCents: FULL }) =>
    rig.apps[i].http().post(`${A}/invoices/${id}/refund`).set(adminAuth).send(body);
  const providerRefund = (i: number, id: string, idempotencyKey?: string) =>
    rig.apps[i].provider.refundPayment({
      data: { invoiceRecordId: id },
      amount: FULL,
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });

  it.each([2, 10])(
    '%i concurrent full refunds of one paid invoice: one refund request reaches the service',
    async (n) => {
      const inv = await rig.paidInvoice();
      const before = rig.refundRequests();
      // A slow service widens the race: every request arrives while the first refund is in flight.
      rig.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', latencyMs: 300 });
      const results = await Promise.allSettled(
        Array.from({ length: n }, (_, i) =>
          i % 2 === 0
            ? adminRefund(i % 4 < 2 ? 0 : 1, inv.id, { amountCents: FULL, idempotencyKey: `k-${i}` }).then(
                (res) => {
                  if (res.status !== 200)
                    throw Object.assign(new Error(res.body.message), { body: res.body });
                  return res.body.refund.id as string;
                },
              )
            : providerRefund(i % 4 < 2 ? 1 : 0, inv.id, `k-${i}`).then(() => 'provider'),
        ),
      );

      expect(rig.refundRequests() - before).toBe(1);
      expect(rig.madeAtService(inv.gatewayId)).toBe(1);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      // Every other caller was told which refund is in progress (409), none was sent.
      const ledger = await rig.ledger(inv.id);
      const made = ledger.filter((r) => r.state === 'succeeded');
      expect(made).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'fulfilled') continue;
        const err = r.reason as { body?: { error: string; refundId: string } } & Error;
        if (err instanceof RefundInProgressError) expect(err.refund.id).toBe(made[0].id);
        else if (err.body?.error === 'refund_in_progress') expect(err.body.refundId).toBe(made[0].id);
        // A caller that came after the refund settled finds nothing left to refund (409 by status).
        else expect(err.message).toMatch(/in progress|refund is not allowed|refundable/);
      }
      const record = await rig.record(inv.id);
      expect(record).toMatchObject({ statusCode: 9, refundedCents: FULL });
    },
  );

  it('without keys, concurrent identical refunds are one refund: every other caller is refused, naming it', async () => {
    const inv = await rig.paidInvoice();
    const before = rig.refundRequests();
    rig.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', latencyMs: 200 });
    const answers = await Promise.all([0, 1, 0, 1].map((i) => adminRefund(i, inv.id)));
    expect(rig.refundRequests() - before).toBe(1);
    const ids = new Set(answers.map((a) => a.body.refund?.id ?? a.body.refundId));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status).toBe(409);
      expect(['refund_in_progress', 'refund_repeated']).toContain(a.body.error);
    }
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
  });

  /** Loses the answer of the next refund after the service made it, and the `reads` read-backs after it. */
  async function loseAnswer(effect: { status: 503 } | { hang: true }, reads = 1): Promise<void> {
    rig.sandbox.controls.addFault({
      method: 'PUT',
      path: '/invoices',
      latencyMs: 200,
      afterProcessing: true,
      times: 1,
      ...effect,
    });
    // Once the refund request took its rule, the next reads fail too: its outcome stays unknown for now.
    await waitFor(() => rig.sandbox.controls.faults().length === 0, 10_000, 'refund request sent');
    rig.sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: reads });
  }

  it.each([
    ['answered 503 after processing', { status: 503 as const }],
    ['timed out after processing', { hang: true as const }],
  ])('a refund %s, retried through the admin API: refunded once, ledger succeeded', async (_name, effect) => {
    const inv = await rig.paidInvoice();
    const before = rig.refundRequests();
    const body = { amountCents: 5000, idempotencyKey: `admin-${inv.id}` };
    const first = adminRefund(0, inv.id, body).then((res) => res); // supertest sends on then()
    await loseAnswer(effect, 2);
    const lost = await first;
    expect(lost.status).toBe(202);
    expect(lost.body.refund).toMatchObject({ state: 'unknown', confirming: true, amountCents: 5000 });
    // Being confirmed: another refund of the invoice is refused, naming it; nothing is sent.
    const other = await adminRefund(1, inv.id, { amountCents: 100, idempotencyKey: 'another' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'refund_in_progress', refundId: lost.body.refund.id });
    // The operator retries with the same key (the page keeps it): the result, never a second refund.
    const retried = await adminRefund(1, inv.id, body);
    expect(retried.status).toBe(200);
    expect(retried.body.refund).toMatchObject({ id: lost.body.refund.id, state: 'succeeded' });
    expect(retried.body).toMatchObject({ refundedCents: 5000, statusCode: 8 });
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    expect(rig.refundRequests() - before).toBeLessThanOrEqual(1);
    const list = await rig.apps[0].http().get(`${A}/invoices/${inv.id}/refunds`).set(adminAuth).expect(200);
    expect(list.body).toMatchObject({ refundableCents: FULL - 5000, refunds: [{ state: 'succeeded' }] });
  });

  it.each([
    ['answered 503 after processing', { status: 503 as const }],
    ['timed out after processing', { hang: true as const }],
  ])('a refund %s, retried through the provider: refunded once, ledger succeeded', async (_name, effect) => {
    const inv = await rig.paidInvoice();
    const first = providerRefund(1, inv.id, `medusa-refund-${inv.id}`);
    await loseAnswer(effect);
    const err = await first.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RefundBeingConfirmedError);
    const out = await providerRefund(0, inv.id, `medusa-refund-${inv.id}`);
    expect(out.data).toMatchObject({ statusCode: 9, refundedCents: FULL });
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    const ledger = await rig.ledger(inv.id);
    expect(ledger.map((r) => r.state)).toEqual(['succeeded']);
  });

  it('the worker settles a refund whose answer was lost, with nobody retrying', async () => {
    const inv = await rig.paidInvoice();
    const events = settledEvents(inv.id);
    const first = adminRefund(0, inv.id, { amountCents: 700, idempotencyKey: `w-${inv.id}` }).then(
      (res) => res,
    );
    await loseAnswer({ status: 503 });
    expect((await first).status).toBe(202);
    // Due now rather than after `recheckMs`: the worker's next round reads it back.
    await rig.db.dataSource
      .getRepository(InvoiceRefund)
      .update({ invoiceRecordId: inv.id }, { nextCheckAt: new Date() });
    await waitFor(
      async () => (await rig.ledger(inv.id))[0]?.state === 'succeeded',
      10_000,
      'settled by the worker',
    );
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    const list = await rig.apps[1].http().get(`${A}/invoices/${inv.id}/refunds`).set(adminAuth).expect(200);
    expect(list.body.refunds[0]).toMatchObject({ state: 'succeeded', confirming: false, amountCents: 700 });
    // Announced once, after the row moved (either instance's worker may have settled it).
    expect(events).toEqual([
      expect.objectContaining({
        refundId: list.body.refunds[0].id,
        gatewayId: inv.gatewayId,
        state: 'succeeded',
        amountCents: 700,
      }),
    ]);
  });

  it('a refund the service never made (refused before processing, answer lost) settles as failed and frees the invoice', async () => {
    const inv = await rig.paidInvoice();
    const events = settledEvents(inv.id);
    rig.sandbox.controls.addFault({ method: 'PUT', path: '/invoices', status: 503, times: 1 });
    const lost = await adminRefund(0, inv.id, { amountCents: 300, idempotencyKey: `f-${inv.id}` });
    // The read-back shows an unchanged total, but the request could still land: being confirmed, not failed yet.
    expect(lost.status).toBe(202);
    await waitFor(
      async () => (await rig.ledger(inv.id))[0]?.state === 'failed',
      10_000,
      'settled as not made',
    );
    expect(rig.madeAtService(inv.gatewayId)).toBe(0);
    // The event follows the row's commit (it is announced after the move, never before).
    await waitFor(() => events.length > 0, 10_000, 'the failed refund announced');
    expect(events).toEqual([expect.objectContaining({ state: 'failed', amountCents: 300 })]);
    const again = await adminRefund(1, inv.id, { amountCents: 300, idempotencyKey: `g-${inv.id}` });
    expect(again.status).toBe(200);
    expect(rig.madeAtService(inv.gatewayId)).toBe(1);
    // The first key keeps its result.
    const repeat = await adminRefund(1, inv.id, { amountCents: 300, idempotencyKey: `f-${inv.id}` });
    expect(repeat.status).toBe(409);
    expect(repeat.body.error).toBe('refund_failed');
  });
});
