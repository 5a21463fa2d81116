import { randomUUID } from 'node:crypto';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { startRewritingProxy } from '../checkout/support';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  openWebhooksDatabase,
  postDelivery,
  recordedSandboxInvoice,
  startWebhookApp,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

/**
 * The service as a store may meet it: after an invoice was paid, its reads report another total for it. A real hop
 * in front of the sandbox rewrites `amount.gross` (and `payment.total`) of one invoice in its answers once told to.
 */
async function startAmountRewriter(target: string) {
  const rewrite: { invoiceId: string | null; gross: number; paid: number | null } = {
    invoiceId: null,
    gross: 0,
    paid: null,
  };
  const change = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(change);
    if (typeof value !== 'object' || value === null) return;
    const o = value as Record<string, unknown>;
    if (o.id === rewrite.invoiceId && typeof o.amount === 'object' && o.amount !== null) {
      (o.amount as Record<string, unknown>).gross = rewrite.gross;
      if (rewrite.paid !== null && typeof o.payment === 'object' && o.payment !== null)
        (o.payment as Record<string, unknown>).total = rewrite.paid;
    }
    Object.values(o).forEach(change);
  };
  const proxy = await startRewritingProxy<unknown>(target, change, 'GET');
  return { ...proxy, rewrite };
}

/**
 * A captured invoice whose amount the service later reports differently: the record keeps the amounts the order was
 * settled on, the order is left as it is (later statuses still reach it as they are), and one alert is raised.
 */
describeEachDatabase('webhooks: a captured invoice reported with another amount', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let rewriter: Awaited<ReturnType<typeof startAmountRewriter>>;
  let app: WebhookApp;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({ webhookRetry: { attempts: 5, baseDelayMs: 20, factor: 2 } });
    rewriter = await startAmountRewriter(sandbox.url);
    app = await startWebhookApp(db, rewriter);
  });
  afterAll(async () => {
    await app.close();
    await rewriter.close();
    await sandbox.close();
    await db.destroy();
  });

  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const until = async (recordId: string, code: number) => {
    await sandbox.controls.waitForDeliveries();
    await waitFor(async () => (await record(recordId)).statusCode === code, 15_000, `status ${code}`);
    await app.settle();
  };
  /** A copy of the service's delivery, as a retry or a second webhook would bring it. */
  const redeliver = async (id: string) => {
    const token = sandbox.controls.webhooks()[0].token;
    const body = {
      event: 'invoice.update',
      delivery_id: randomUUID(),
      invoice: sandbox.controls.renderInvoice(id),
    };
    const res = await postDelivery(app.url, '/webhooks/invoice-payments', body, [
      'default',
      tokenLine('', token),
    ]);
    expect(res.status).toBe(200);
    await app.settle();
  };
  const amountAlerts = (recordId: string) =>
    app.alerts.filter((a) => a.kind === 'captured_amount_changed' && a.invoiceRecordId === recordId);

  it('keeps the stored total and the order, and raises one alert however often it is reported', async () => {
    const { id, rec } = await recordedSandboxInvoice(app, db.dataSource);
    await until(rec.id, 1);
    await sandbox.controls.pay(id);
    await until(rec.id, 5);
    expect(await record(rec.id)).toMatchObject({
      grossCents: 2_100,
      paidCents: 2_100,
      amountMismatch: false,
    });

    // The service now reads 25.00 for it: a delivery (and its copies) makes the store look it up.
    Object.assign(rewriter.rewrite, { invoiceId: id, gross: 25, paid: null });
    await redeliver(id);
    await redeliver(id);
    expect(await record(rec.id)).toMatchObject({
      statusCode: 5,
      grossCents: 2_100,
      paidCents: 2_100,
      amountMismatch: false,
    });
    expect(amountAlerts(rec.id)).toHaveLength(1);
    expect(amountAlerts(rec.id)[0].message).toMatch(/total 25\.00 \(stored 21\.00\)/);
    expect(amountAlerts(rec.id)[0].orderId).toBe(rec.orderId);
    const noted = await db.dataSource
      .getRepository(InvoiceStatusHistory)
      .findBy({ invoiceRecordId: rec.id, applied: false, toCode: 5 });
    expect(noted.length).toBeGreaterThanOrEqual(1);
    expect(noted.every((h) => h.note?.startsWith('captured amount reported anew: total 25.00'))).toBe(true);

    // A later status still reaches the order as it is (captured, awaiting the refund), the total kept.
    await sandbox.controls.setStatus(id, 7);
    await until(rec.id, 7);
    expect(await record(rec.id)).toMatchObject({ grossCents: 2_100, amountMismatch: false });
    const told = app.port.changes.filter((c) => c.invoiceRecordId === rec.id);
    expect(told.map((c) => [c.current.code, c.current.orderPaymentStatus, c.alert])).toEqual([
      [1, 'awaiting', undefined],
      [5, 'captured', undefined],
      [7, 'captured', undefined],
    ]);
    expect(amountAlerts(rec.id)).toHaveLength(1);

    // More paid than stored: another amount, another alert; the payment kept too.
    Object.assign(rewriter.rewrite, { paid: 30 });
    await redeliver(id);
    // Its lookup may wait for the invoice's next turn (lookups of one invoice are paced).
    await waitFor(() => amountAlerts(rec.id).length === 2, 15_000, 'the second alert');
    expect(await record(rec.id)).toMatchObject({ grossCents: 2_100, paidCents: 2_100 });
    expect(amountAlerts(rec.id)[1].message).toMatch(/paid 30\.00 \(stored 21\.00\)/);
  });

  it('an unpaid invoice takes the total the service reports, with no alert', async () => {
    const { id, rec } = await recordedSandboxInvoice(app, db.dataSource);
    await until(rec.id, 1);
    Object.assign(rewriter.rewrite, { invoiceId: id, gross: 22, paid: null });
    await redeliver(id);
    expect((await record(rec.id)).grossCents).toBe(2_200);
    expect(amountAlerts(rec.id)).toHaveLength(0);
  });
});
