import { DEFAULT_WIRE_PROFILE } from '../../src/gateway/wire-profile';
import { InvoiceRecord } from '../../src/index';
import { InvoicePaymentsAlertRecord } from '../../src/settings/alert.entity';
import { LateInvoiceService } from '../../src/checkout/late-invoice.service';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { withReferrer } from '../../src/core/attempt-claim';
import { mapOrderToInvoice } from '../../src/checkout/order-mapping';
import { normalizeInvoice } from '../../src/gateway/invoice.reader';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, waitFor } from '../checkout/support';
import { AdminApp, newKey, openAdminDatabase, startAdminApp } from '../settings/support';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { resolveCheckoutOptions } from '../../src/options/checkout.options';

/**
 * Two stores on one service account (another shop of the merchant, a staging copy), each with its own database and
 * so its own referrer namespace, both hearing every delivery of the account: neither cancels or adopts the other's
 * invoices, even for orders with the same reference.
 */
describeEachDatabase('only our invoices: referrer namespaces', (kind) => {
  let sandbox: SandboxServer;
  const dbs: TestDatabase[] = [];
  const stores: AdminApp[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ webhookRetry: { baseDelayMs: 20, attempts: 3 } });
    for (let i = 0; i < 2; i++) {
      const db = await openAdminDatabase(kind);
      dbs.push(db);
      const app = await startAdminApp(db, sandbox, { admin: { encryption: { keys: { k1: newKey() } } } });
      stores.push(app);
      // Registered on the account: every invoice's deliveries reach both stores.
      sandbox.controls.registerWebhook({ url: app.webhookUrl });
    }
  });
  afterAll(async () => {
    for (const app of stores) await app.close();
    await sandbox?.close();
    for (const db of dbs) await db.destroy();
  });

  const records = (i: number) => dbs[i].dataSource.getRepository(InvoiceRecord).find();
  const statusAtService = (gatewayId: string) => sandbox.controls.getInvoice(gatewayId)?.statusCode;
  /**
   * Every delivery sent; in each store, the deliveries of its own invoices processed and every other invoice's
   * looked at at least once (those stay pending: no record of this store has them, and none ever will).
   */
  async function settled(): Promise<void> {
    await sandbox.controls.waitForDeliveries(10_000);
    for (const db of dbs) {
      await waitFor(
        async () => {
          const own = new Set(
            (await db.dataSource.getRepository(InvoiceRecord).find()).map((r) => r.gatewayId),
          );
          const entries = await db.dataSource.getRepository(WebhookInboxEntry).find();
          const looked = new Set(entries.filter((e) => e.attempts > 0).map((e) => e.gatewayId));
          return entries.every((e) =>
            own.has(e.gatewayId) ? e.state === 'processed' : looked.has(e.gatewayId),
          );
        },
        10_000,
        'inbox processed',
      );
    }
  }

  it('each store makes and keeps its own namespace; referrers carry it', async () => {
    const [a, b] = await Promise.all(stores.map((s) => s.settings.referrerNamespace()));
    expect(a).toMatch(/^[a-z0-9]{8}$/);
    expect(b).toMatch(/^[a-z0-9]{8}$/);
    expect(a).not.toBe(b);
    // Made once: asked again (any instance, any time), the same one.
    expect(await stores[0].settings.referrerNamespace()).toBe(a);
  });

  it('the same order reference in both stores: neither cancels the other invoice', async () => {
    const reference = `1001-${Date.now()}`;
    const outs = [];
    for (const store of stores) {
      const order = makeOrder({ reference });
      outs.push(await store.provider.initiatePayment(checkout(order, 'pix')));
    }
    const [nsA, nsB] = await Promise.all(stores.map((s) => s.settings.referrerNamespace()));
    expect(outs[0].data.referrer).toBe(`${nsA}:${reference}-1`);
    expect(outs[1].data.referrer).toBe(`${nsB}:${reference}-1`);
    // Each store hears both invoices (created, then paid): none is canceled, none adopted by the other.
    await sandbox.controls.pay(outs[0].data.gatewayId as string);
    await settled();
    expect(statusAtService(outs[0].data.gatewayId as string)).toBe(5);
    expect(statusAtService(outs[1].data.gatewayId as string)).toBe(1);
    for (const i of [0, 1]) {
      const mine = (await records(i)).filter((r) => r.referrer.endsWith(`:${reference}-1`));
      expect(mine.map((r) => r.gatewayId)).toEqual([outs[i].data.gatewayId]);
    }
  });

  it('a referrer without a namespace (an old store on the account) matching a legacy record is left alone', async () => {
    const order = makeOrder();
    const out = await stores[1].provider.initiatePayment(checkout(order, 'pix'));
    await settled();
    // Store B's record as it was before namespaces: referrer `<reference>-1`.
    const legacy = `${order.reference}-1`;
    await dbs[1].dataSource.getRepository(InvoiceRecord).update({ id: out.id }, { referrer: legacy });
    // Another store without namespaces creates an invoice under the same referrer and the same amount.
    const { params } = mapOrderToInvoice(
      checkout(makeOrder({ reference: order.reference }), 'pix'),
      resolveCheckoutOptions(),
      Date.now(),
      DEFAULT_WIRE_PROFILE.timeZone,
    );
    const theirs = await stores[0].gateway.createInvoice(withReferrer(params, legacy));
    await settled();
    expect(statusAtService(theirs.id)).toBe(1);
    expect(statusAtService(out.data.gatewayId as string)).toBe(1);
    expect(
      (await dbs[1].dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: out.id })).gatewayId,
    ).toBe(out.data.gatewayId);
  });

  it('our namespace but another amount: not adopted, not canceled', async () => {
    const order = makeOrder();
    const out = await stores[0].provider.initiatePayment(checkout(order, 'pix'));
    const late = stores[0].app.get(LateInvoiceService);
    const record = await dbs[0].dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: out.id });
    const body = sandbox.controls.renderInvoice(out.data.gatewayId as string);
    const forged = normalizeInvoice(body);
    const other = {
      ...forged,
      id: 'X-999',
      amounts: { ...forged.amounts, grossCents: record.amountCents + 1 },
    };
    await dbs[0].dataSource.getRepository(InvoiceRecord).update({ id: out.id }, { gatewayId: null });
    expect(await late.adopt(other)).toMatchObject({
      record: null,
      foreign: expect.stringContaining('amount'),
    });
    const after = await dbs[0].dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: out.id });
    expect(after.gatewayId).toBeNull();
    expect(
      await dbs[0].dataSource.getRepository(InvoicePaymentsAlertRecord).countBy({ kind: 'duplicate_paid' }),
    ).toBe(0);
  });
});
