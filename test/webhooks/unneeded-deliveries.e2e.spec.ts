import { randomUUID } from 'node:crypto';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  ourReferrer,
  postDelivery,
  recordedSandboxInvoice,
  startWebhookApp,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

/** What `createSandboxInvoice` charges (2 × 10.50). */
const SANDBOX_INVOICE_CENTS = 2_100;
const NOT_NEEDED = { received: true, ignored: 'no_open_invoice', message: expect.any(String) };

/**
 * Genuine deliveries the store has no use for (its invoice closed here, or none of the store's) are acknowledged
 * with a 2xx, so the service neither retries them nor counts them as failures; nothing is stored and the service is
 * not asked. What is malformed or unauthenticated is still a 4xx.
 */
describeEachDatabase('webhooks: deliveries the store does not need', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  /** Every request the sandbox answered, with when. */
  const calls: Array<{ at: number; line: string }> = [];
  const serviceCallsSince = (from: number) =>
    calls.filter((c) => c.at >= from && /^(GET \/invoices|OPTIONS \/webhooks)/.test(c.line));

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({
      webhookRetry: { attempts: 5, baseDelayMs: 20, factor: 2 },
      log: (line) => calls.push({ at: Date.now(), line }),
    });
    app = await startWebhookApp(db, sandbox, { merchantToken: 'shop-secret' });
  });
  afterAll(async () => {
    await app.close();
    await sandbox.close();
    await db.destroy();
  });
  afterEach(() => sandbox.controls.clearFaults());

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  const serviceToken = () => sandbox.controls.webhooks()[0].token;
  const post = (invoice: unknown, lines = ['default', tokenLine('', serviceToken())]) =>
    postDelivery(
      app.url,
      '/webhooks/invoice-payments',
      { event: 'invoice.update', delivery_id: randomUUID(), invoice },
      lines,
    );
  const attemptsOf = (gatewayId: string, since: number) =>
    sandbox
      .deliveries()
      .filter((d) => d.invoiceId === gatewayId && d.attempts.some((a) => Date.parse(a.at) >= since))
      .map((d) => d.attempts.map((a) => a.status));

  it('late genuine deliveries of an invoice closed here (refunded) are answered 200 at their first attempt: no row, no call', async () => {
    const { id, rec } = await recordedSandboxInvoice(app, db.dataSource);
    await sandbox.controls.waitForDeliveries();
    await waitFor(async () => (await record(rec.id)).statusCode === 1, 15_000, 'created applied');
    await app.settle();

    // Paid then refunded while the deliveries are held; the sweep reaches the store first and closes the record.
    sandbox.controls.setWebhookFaults({ hold: true });
    await sandbox.controls.pay(id);
    await sandbox.controls.setStatus(id, 9);
    expect((await app.app.get(ReconciliationService).sweep()).error).toBeNull();
    await app.settle();
    expect((await record(rec.id)).statusCode).toBe(9);

    const rows = await inbox().countBy({ gatewayId: id });
    const released = Date.now();
    sandbox.controls.setWebhookFaults({});
    sandbox.controls.releaseWebhooks();
    await sandbox.controls.waitForDeliveries();
    // Both late deliveries (paid, refunded): one attempt each, acknowledged; nothing stored, the service not asked.
    expect(attemptsOf(id, released)).toEqual([[200], [200]]);
    const copy = await post(sandbox.controls.renderInvoice(id));
    expect([copy.status, copy.body]).toEqual([200, NOT_NEEDED]);
    expect(copy.body.message).toContain(id);
    await app.settle();
    expect(await inbox().countBy({ gatewayId: id })).toBe(rows);
    expect(serviceCallsSince(released)).toEqual([]);
    expect((await record(rec.id)).statusCode).toBe(9);
  });

  it('deliveries of an invoice this store never made are answered 200 at their first attempt: no row, no call', async () => {
    const before = Date.now();
    const stray = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl });
    await sandbox.controls.pay(stray.invoice.id);
    await sandbox.controls.waitForDeliveries();
    expect(attemptsOf(stray.invoice.id, before)).toEqual([[200], [200]]);
    const invoice = sandbox.controls.renderInvoice(stray.invoice.id) as WireInvoiceCurrent;
    const copy = await post({ ...invoice, id: '987654321', referrer: `ref-${randomUUID()}` });
    expect([copy.status, copy.body]).toEqual([200, NOT_NEEDED]);
    await app.settle();
    expect(await inbox().countBy({ gatewayId: stray.invoice.id })).toBe(0);
    expect(await inbox().countBy({ gatewayId: '987654321' })).toBe(0);
    expect(serviceCallsSince(before)).toEqual([]);
  });

  it('still needed: a paid invoice (a refund or dispute may follow) and one whose create answer is not known yet', async () => {
    const paid = await createSandboxInvoice(app.gateway);
    await insertInvoiceRecord(db.dataSource, {
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: paid.invoice.id,
      referrer: paid.referrer,
      statusCode: 5,
    });
    const taken = await post(await sandbox.controls.pay(paid.invoice.id));
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ received: true, duplicate: false, state: 'pending' });

    // The checkout wrote its record (referrer, no number) before asking; the create answer was lost.
    const referrer = ourReferrer();
    const unknown = await insertInvoiceRecord(db.dataSource, {
      orderId: referrer,
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: null,
      referrer,
      creationState: 'unknown',
    });
    const late = await createSandboxInvoice(app.gateway, { referrer });
    const first = await post(sandbox.controls.renderInvoice(late.invoice.id));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ received: true, state: 'pending' });
    await app.settle();
    expect(await inbox().countBy({ gatewayId: late.invoice.id })).toBe(1);
    expect((await record(unknown.id)).gatewayId).toBe(late.invoice.id);
  });

  it('a malformed delivery is still a 4xx naming the field, an unauthenticated one a 401, even for a closed invoice', async () => {
    const closed = await insertInvoiceRecord(db.dataSource, { statusCode: 9 });
    const invoice = { id: closed.gatewayId, referrer: closed.referrer, status: { code: 5, text: 'paid' } };
    const before = await inbox().count();
    expect((await post(invoice)).body).toEqual(NOT_NEEDED);

    const noStatus = await post({ ...invoice, status: { text: 'paid' } });
    expect([noStatus.status, noStatus.body.message]).toEqual([422, expect.stringContaining('status.code')]);
    const control = await post({ ...invoice, referrer: 'ref\u202E' });
    expect([control.status, control.body.message]).toEqual([
      400,
      expect.stringContaining('body.invoice.referrer'),
    ]);
    expect((await post(invoice, ['default'])).status).toBe(401);
    expect((await post(invoice, ['default', tokenLine('wrong', serviceToken())])).status).toBe(401);
    expect(await inbox().count()).toBe(before);
  });
});
