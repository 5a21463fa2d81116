import { randomBytes, randomUUID } from 'node:crypto';
import { generateCpf } from '@brazilian-utils/brazilian-utils';
import {
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  InvoiceRecord,
  ORDER_PAYMENT_PORT,
} from '../../src/index';
import { InvoiceRecordStore } from '../../src/core/invoice-record.store';
import { recordOfInvoice } from '../../src/core/invoice-identity';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { normalizeInvoice } from '../../src/gateway/invoice.reader';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { InvoicePaymentsAlertRecord } from '../../src/settings/alert.entity';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import {
  checkout,
  makeOrder,
  openCheckoutDatabase,
  payUntilCreated as payShopperUntilCreated,
  RecordingOrderPort,
  waitFor,
} from '../checkout/support';
import { SANDBOX_TOKEN, sandboxGateway, startHostApp, type HostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';

// Long enough that a create the sandbox answers is never given up on a busy machine; the hung ones still end soon.
const CREATE_TIMEOUT_MS = 1000;
const MARGIN_MS = 600;

/**
 * Red team of "ours means ours" (issue 36, item 1): a second store on the same service account (or a staging copy,
 * which shares the referrer namespace) creates an invoice under one of our referrers, with its own payment id and
 * customer, and its deliveries reach our store. It was canceled at the service as a duplicate of our order's
 * invoice (matched by referrer alone). Now it is left alone: never canceled, adopted or applied to our order, and
 * an alert is raised; our own invoice goes on working.
 */
describeEachDatabase('ours means ours: another store’s invoice under our referrer', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: HostApp;
  let provider: InvoicePaymentProvider;
  let port: RecordingOrderPort;
  const requests: string[] = [];

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ autoProcessCards: false, log: (line) => requests.push(line) });
    host = await startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: { ...sandboxGateway(sandbox.url), timeouts: { createMs: CREATE_TIMEOUT_MS } },
          checkout: { creationWaitMs: 300, unknownOutcomeRecheckMs: 100, lateCreationMarginMs: MARGIN_MS },
          webhooks: { merchantToken: 'shop-secret', inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } },
          admin: {
            adminKey: 'admin-key-for-foreign-invoice-tests-0123456789',
            encryption: { keys: { k1: randomBytes(32) } },
            settingsCacheTtlMs: 0,
          },
          notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
          orderPort: RecordingOrderPort,
        }),
      ],
      { listen: true },
    );
    provider = host.app.get(InvoicePaymentProvider);
    port = host.app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT);
    // The account's webhook URL is ours: every invoice created with it notifies this store.
    await host.app.get(InvoicePaymentsSettingsService).update({ publicWebhookUrl: webhookUrl() });
  });
  afterAll(async () => {
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
  });
  beforeEach(() => {
    requests.length = 0;
    sandbox.controls.clearFaults();
  });

  const webhookUrl = () => `${host.url}/webhooks/invoice-payments`;
  const records = (orderId: string) =>
    db.dataSource.getRepository(InvoiceRecord).find({ where: { orderId }, order: { attempt: 'ASC' } });
  const statusAtService = (id: string) => sandbox.controls.getInvoice(id)?.statusCode;
  const cancels = () => requests.filter((line) => line.startsWith('DELETE /invoices ')).length;
  const foreignAlertsNow = async (invoiceId: string) =>
    (
      await db.dataSource.getRepository(InvoicePaymentsAlertRecord).findBy({ kind: 'foreign_invoice' })
    ).filter((a) => a.message.includes(`invoice ${invoiceId} `));
  /** The stored `foreign_invoice` alerts naming an invoice, once at least one was written (the write is queued). */
  const foreignAlerts = async (invoiceId: string) => {
    await waitFor(
      async () => (await foreignAlertsNow(invoiceId)).length > 0,
      20_000,
      'a foreign_invoice alert',
    );
    return foreignAlertsNow(invoiceId);
  };
  const settle = async () => {
    await sandbox.controls.waitForDeliveries(10_000);
    await host.app.get(WebhookInboxProcessor).drain();
    await host.app.get(StatusChangeDispatcher).drain();
  };

  /**
   * The other store's invoice, created directly at the service over HTTP: our referrer, its own payment id and
   * customer, and (unless told) the same total as our order, 119.90; its deliveries go to our webhook URL.
   */
  async function theirInvoice(referrer: string, opts: { paymentId?: string; reais?: number } = {}) {
    const res = await fetch(`${sandbox.url}/invoices`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SANDBOX_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client: { name: 'Cliente da Outra Loja', document: generateCpf(), email: 'outra@example.com' },
        payment: {
          type: 1,
          product_type: 2,
          id: opts.paymentId ?? `their-order-${randomUUID()}`,
          referrer,
          webhook: webhookUrl(),
          products: [{ id: 'sku-9', title: 'Outro produto', qnt: 1, amount: opts.reais ?? 119.9 }],
        },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { invoice: { id: string; referrer: string } };
    expect(body.invoice.referrer).toBe(referrer);
    return body.invoice.id;
  }

  /** A shopper retrying as told until the invoice is there. */
  const payUntilCreated = async (order: ReturnType<typeof makeOrder>) =>
    (await payShopperUntilCreated(provider, order)).out;

  it('its deliveries (created, paid): not canceled at the service, our order untouched, one alert; ours still works', async () => {
    const order = makeOrder();
    const ours = await provider.initiatePayment(checkout(order, 'pix'));
    await settle();
    const record = (await records(order.id))[0];
    const told = port.changes.length;

    const theirs = await theirInvoice(ours.data.referrer);
    await settle();
    await sandbox.controls.pay(theirs);
    await settle();

    // At the service: theirs was never canceled (paid, as its customer did); nothing was canceled at all.
    expect(statusAtService(theirs)).toBe(5);
    expect(cancels()).toBe(0);
    // Here: our order's one record, as it was; the host heard nothing of their invoice.
    const now = await records(order.id);
    expect(now).toHaveLength(1);
    expect(now[0]).toMatchObject({
      id: record.id,
      gatewayId: ours.data.gatewayId,
      statusCode: 1,
      duplicateOf: null,
      openOrderId: order.id,
      paidCents: null,
    });
    expect(port.changes.slice(told)).toEqual([]);
    // Its deliveries were taken in and left alone, not retried as "no record yet".
    const entries = await db.dataSource.getRepository(WebhookInboxEntry).findBy({ gatewayId: theirs });
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const entry of entries) {
      expect(entry).toMatchObject({ state: 'ignored', invoiceRecordId: null });
      expect(entry.lastError).toContain('does not list it under the payment id sent');
    }
    // One alert for it, naming their invoice and our order, stored for the admin page.
    const alerts = await foreignAlerts(theirs);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ orderId: order.id, invoiceRecordId: record.id });

    // The sweep and a host's own lookups see it too: still not ours, no second alert.
    expect((await host.app.get(ReconciliationService).sweep()).error).toBeNull();
    const identity = host.app.get(InvoiceRecordStore).identity;
    const recordOf = async (gatewayId: string) =>
      (
        await recordOfInvoice(
          db.dataSource.getRepository(InvoiceRecord),
          identity,
          normalizeInvoice(sandbox.controls.renderInvoice(gatewayId)),
        )
      ).record;
    expect(await recordOf(theirs)).toBeNull();
    expect((await recordOf(ours.data.gatewayId!))?.id).toBe(record.id);
    // Asking the service about our session reads our invoice, never the newer one under the same referrer.
    const session = await provider.retrievePayment({ data: { invoiceRecordId: record.id } });
    expect(session.data).toMatchObject({ gatewayId: ours.data.gatewayId, statusCode: 1 });
    expect((await records(order.id))[0]).toMatchObject({ statusCode: 1, paidCents: null });
    expect(await foreignAlerts(theirs)).toHaveLength(1);
    expect(cancels()).toBe(0);

    // Our own invoice: paid, applied, told.
    await sandbox.controls.pay(ours.data.gatewayId!);
    await settle();
    expect((await records(order.id))[0]).toMatchObject({ statusCode: 5, paidCents: 11990 });
    expect(port.changes.find((c) => c.invoiceRecordId === record.id && c.current.code === 5)).toBeDefined();
    expect(statusAtService(theirs)).toBe(5);
  });

  it('an unknown creation outcome, their invoice under the attempt’s referrer (another payment id): not adopted', async () => {
    const order = makeOrder();
    const namespace = await host.app.get(InvoicePaymentsSettingsService).referrerNamespace();
    const referrer = `${namespace}:${order.reference}-1`;
    // Their delivery is held until our attempt exists: sent at once, it can reach the store before the attempt is
    // claimed (a busy machine), and a delivery naming nothing the store knows is acknowledged and dropped.
    sandbox.controls.setWebhookFaults({ hold: true });
    const theirs = await theirInvoice(referrer);
    // Our create request never lands: the checkout looks the attempt up by its referrer until it cannot land.
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, hang: true });
    const paying = payUntilCreated(order);
    await waitFor(async () => (await records(order.id)).length > 0, 10_000, 'our attempt claimed');
    sandbox.controls.setWebhookFaults({});
    expect(sandbox.controls.releaseWebhooks()).toBe(1);
    const out = await paying;
    await settle();

    const [first, second] = await records(order.id);
    expect(first).toMatchObject({ referrer, creationState: 'failed', gatewayId: null, openOrderId: null });
    expect(second).toMatchObject({ id: out.id, attempt: 2, creationState: 'created', statusCode: 1 });
    expect(second.gatewayId).not.toBe(theirs);
    expect(statusAtService(theirs)).toBe(1);
    expect(cancels()).toBe(0);
    // Its delivery reached us while our attempt was unsettled: left alone and alerted.
    expect(await foreignAlerts(theirs)).toHaveLength(1);
  });

  it('their invoice has our payment id (a staging copy’s order) but another amount: found, refused, alerted', async () => {
    const order = makeOrder();
    const namespace = await host.app.get(InvoicePaymentsSettingsService).referrerNamespace();
    const referrer = `${namespace}:${order.reference}-1`;
    const theirs = await theirInvoice(referrer, { paymentId: order.id, reais: 59.9 });
    sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, hang: true });
    const out = await payUntilCreated(order);
    await settle();

    const [first, second] = await records(order.id);
    expect(first).toMatchObject({ referrer, creationState: 'failed', gatewayId: null });
    expect(second).toMatchObject({ id: out.id, attempt: 2, statusCode: 1 });
    expect(statusAtService(theirs)).toBe(1);
    expect(cancels()).toBe(0);
    const alerts = await foreignAlerts(theirs);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].message).toContain('its amount 59.90 is not the 119.90 sent');
  });
});
