import { InvoicePaymentsAlertRecord } from '../../src/settings/alert.entity';
import { InvoiceStatusHistory } from '../../src/index';
import { InvoiceStatusService } from '../../src/core/invoice-status.service';
import { httpAnswerOf } from '../../src/errors/http-answers';
import { normalizeInvoice } from '../../src/gateway/invoice.reader';
import { waitFor } from '../checkout/support';
import { adminAuth, AdminApp, newKey, startAdminApp } from '../settings/support';
import { describeEachDatabase } from '../support/databases';
import { A, RefundRig, startReadRewritingProxy, startRefundRig } from './support';

/**
 * Amounts never go backwards and never come from an impossible answer: a report read before a refund (a webhook
 * overtaken by the refund, a stale read-back) may raise the recorded totals, never lower them; a service answer
 * with a negative `refunds.total` is refused with an alert, and nothing of it is stored or acted on.
 */
describeEachDatabase('refunds: amounts', (kind) => {
  let rig: RefundRig;

  beforeAll(async () => {
    rig = await startRefundRig(kind);
  });
  afterAll(() => rig?.close());

  it('a refund racing a confirmation: the refunded total never decreases', async () => {
    const inv = await rig.paidInvoice();
    const status = rig.apps[0].app.get(InvoiceStatusService);
    const snapshot = () => normalizeInvoice(rig.sandbox.controls.renderInvoice(inv.gatewayId));
    const refund = (key: string) =>
      rig.apps[1]
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 1000, idempotencyKey: key });
    const paidView = snapshot(); // 5, nothing refunded: what a slow confirmation read before the refunds
    expect((await refund('r1')).status).toBe(200);
    const afterFirst = snapshot(); // 8, 10.00 refunded
    expect((await refund('r2')).status).toBe(200);
    expect(await rig.record(inv.id)).toMatchObject({ statusCode: 8, refundedCents: 2000 });

    // The stale reads arrive now, in any order, alongside a third refund: the total only goes up.
    const seen: number[] = [];
    const sample = async () => seen.push((await rig.record(inv.id)).refundedCents);
    await Promise.all([
      status.apply({ recordId: inv.id, code: 8, source: 'webhook', invoice: afterFirst }).then(sample),
      status.apply({ recordId: inv.id, code: 5, source: 'webhook', invoice: paidView }).then(sample),
      refund('r3').then(sample),
      status.apply({ recordId: inv.id, code: 8, source: 'sweep', invoice: afterFirst }).then(sample),
    ]);
    await sample();
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(seen.every((cents) => cents >= 2000)).toBe(true);
    expect(await rig.record(inv.id)).toMatchObject({ statusCode: 8, refundedCents: 3000 });
    expect(rig.sandbox.controls.getInvoice(inv.gatewayId)?.refunds).toHaveLength(3);
  });

  describe('a service answering a negative refunds.total', () => {
    let liar: AdminApp;
    let proxy: { url: string; close(): Promise<void> };

    beforeAll(async () => {
      proxy = await startReadRewritingProxy(rig.sandbox.url, (json) => {
        for (const item of (json.invoices as Array<Record<string, unknown>> | undefined) ?? []) {
          item.refunds = { ...(item.refunds as object), total: -50 };
        }
      });
      liar = await startAdminApp({ ...rig.db }, rig.sandbox, {
        baseUrl: proxy.url,
        admin: { encryption: { keys: { k1: newKey() } } },
      });
    });
    afterAll(async () => {
      await liar?.close();
      await proxy?.close();
    });

    const alerts = () =>
      rig.db.dataSource.getRepository(InvoicePaymentsAlertRecord).findBy({ kind: 'implausible_amount' });
    const history = (id: string) =>
      rig.db.dataSource.getRepository(InvoiceStatusHistory).countBy({ invoiceRecordId: id });

    it('a read-back: refused, an alert, nothing stored', async () => {
      const inv = await rig.paidInvoice();
      const before = { record: await rig.record(inv.id), history: await history(inv.id) };
      const refused = await liar.provider
        .retrievePayment({ data: { invoiceRecordId: inv.id } })
        .catch((e: unknown) => e);
      // The gateway error it refused the answer with, which the HTTP edges answer 502 (a plain message).
      expect(refused).toMatchObject({ kind: 'response', implausibleAmount: true });
      expect(httpAnswerOf(refused)).toMatchObject({
        status: 502,
        body: { error: 'payment_service_response' },
      });
      const after = await rig.record(inv.id);
      expect(after.refundedCents).toBe(0);
      expect(after.updatedAt).toEqual(before.record.updatedAt);
      expect(await history(inv.id)).toBe(before.history);
      await waitFor(async () => (await alerts()).length > 0, 5000, 'implausible_amount alert stored');
      const raised = await alerts();
      expect(raised[0].message).toMatch(/refunds\.total: amount below zero: -50/);
    });

    it('a refund: refused before anything is sent (502), the ledger says why', async () => {
      const inv = await rig.paidInvoice();
      const res = await liar
        .http()
        .post(`${A}/invoices/${inv.id}/refund`)
        .set(adminAuth)
        .send({ amountCents: 3000 });
      expect(res.status).toBe(502);
      expect(res.body.error).toBe('gateway_response');
      expect(rig.madeAtService(inv.gatewayId)).toBe(0);
      const [row] = await rig.ledger(inv.id);
      expect(row).toMatchObject({ state: 'failed', inFlightInvoiceId: null });
      expect(row.reason).toMatch(/not sent/);
      expect((await rig.record(inv.id)).refundedCents).toBe(0);
    });
  });
});
