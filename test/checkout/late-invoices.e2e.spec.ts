import { randomBytes } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  CheckoutValidationError,
  DuplicateInvoiceCanceled,
  CheckoutOrder,
  GatewayClient,
  InitiatePaymentOutput,
  InvoiceCreationNeedsAttentionError,
  InvoiceNumberClashError,
  InvoicePaymentProvider,
  InvoicePaymentsAlert,
  InvoicePaymentsEvents,
  InvoicePaymentsModule,
  InvoiceRecord,
  InvoiceStatusHistory,
  ORDER_PAYMENT_PORT,
  PaymentBeingConfirmedError,
} from '../../src/index';
import { CLAIM_HEADROOM_MS } from '../../src/checkout/invoice-creation.service';
import { httpAnswerOf } from '../../src/errors/http-answers';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import type { FaultRule } from '../../src/sandbox/types';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { startHostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  CheckoutApp,
  checkout,
  makeOrder,
  startCheckoutApp,
  startRewritingProxy,
  RewritingProxy,
  openCheckoutDatabase,
  RecordingOrderPort,
  sandboxGateway,
  waitFor,
  referrerOf,
  LATE_CREATE,
  LATE_WINDOW_MS,
  lateFirstInvoice,
  payUntilCreated,
} from './support';

const ADMIN_KEY = 'admin-key-for-late-invoice-tests-0123456789';
const PAYABLE = [1, 2, 3, 4, 15];

interface Shop {
  app: INestApplication;
  url: string;
  provider: InvoicePaymentProvider;
  port: RecordingOrderPort;
  alerts: InvoicePaymentsAlert[];
  canceled: DuplicateInvoiceCanceled[];
  close(): Promise<void>;
}

/** One instance of the store: the root module over HTTP (webhooks, admin API), on the shared database. */
async function startShop(db: TestDatabase, sandbox: SandboxServer): Promise<Shop> {
  const host = await startHostApp(
    db,
    [
      InvoicePaymentsModule.forRoot({
        gateway: { ...sandboxGateway(sandbox.url), timeouts: { createMs: LATE_CREATE.createTimeoutMs } },
        checkout: {
          creationWaitMs: 400,
          unknownOutcomeRecheckMs: 100,
          lateCreationMarginMs: LATE_CREATE.marginMs,
          unresolvedAlertMs: 1200,
        },
        webhooks: { merchantToken: 'shop-secret', inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } },
        admin: { adminKey: ADMIN_KEY, encryption: { keys: { k1: randomBytes(32) } }, settingsCacheTtlMs: 0 },
        notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
        orderPort: RecordingOrderPort,
      }),
    ],
    { listen: true },
  );
  const alerts: InvoicePaymentsAlert[] = [];
  const canceled: DuplicateInvoiceCanceled[] = [];
  const events = host.app.get(EventEmitter2);
  events.on(InvoicePaymentsEvents.Alert, (a: InvoicePaymentsAlert) => alerts.push(a));
  events.on(InvoicePaymentsEvents.DuplicateCanceled, (c: DuplicateInvoiceCanceled) => canceled.push(c));
  return {
    app: host.app,
    url: host.url,
    provider: host.app.get(InvoicePaymentProvider),
    port: host.app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT),
    alerts,
    canceled,
    close: host.close,
  };
}

describeEachDatabase(
  'never two payable invoices, never a stuck order, however slow or odd the service',
  (kind) => {
    let db: TestDatabase;
    let sandbox: SandboxServer;
    let a: Shop;
    let b: Shop;
    let gateway: GatewayClient;

    beforeAll(async () => {
      db = await openCheckoutDatabase(kind);
      sandbox = await startSandbox({ autoProcessCards: false });
      a = await startShop(db, sandbox);
      b = await startShop(db, sandbox);
      gateway = a.app.get(GatewayClient);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await sandbox?.close();
      await db?.destroy();
    });
    afterEach(async () => {
      sandbox.controls.clearFaults();
      await a.app.get(InvoicePaymentsSettingsService).update({ publicWebhookUrl: null });
      for (const shop of [a, b]) {
        shop.alerts.length = 0;
        shop.canceled.length = 0;
      }
    });

    // Both instances poll the one inbox: either may process a delivery the other received, and tell of it.
    const canceled = () => [...a.canceled, ...b.canceled];
    const alerts = () => [...a.alerts, ...b.alerts];
    const told = () => [...a.port.changes, ...b.port.changes];
    const records = (orderId: string) =>
      db.dataSource.getRepository(InvoiceRecord).find({ where: { orderId }, order: { attempt: 'ASC' } });
    const atService = async (orderId: string) => (await gateway.listInvoices({ paymentId: orderId })).items;
    const webhooksTo = (shop: Shop) =>
      a.app
        .get(InvoicePaymentsSettingsService)
        .update({ publicWebhookUrl: `${shop.url}/webhooks/invoice-payments` });
    const settleWebhooks = async () => {
      await sandbox.controls.waitForDeliveries();
      for (const shop of [a, b]) await shop.app.get(WebhookInboxProcessor).drain();
      for (const shop of [a, b]) await shop.app.get(StatusChangeDispatcher).drain();
    };

    /** Samples the service every 30 ms until stopped: the most invoices of the order payable at one moment. */
    function watchPayable(orderId: string) {
      let most = 0;
      let stopped = false;
      const sample = async () => {
        const payable = (await atService(orderId)).filter((i) => PAYABLE.includes(i.status.code)).length;
        most = Math.max(most, payable);
      };
      const sampleUntilStopped = async () => {
        await sample();
        return stopped;
      };
      const run = (async () => {
        await waitFor(sampleUntilStopped, 60_000, 'the watch stopped', 30);
        await sample(); // and once more after the last call returned
      })();
      return {
        async stop() {
          stopped = true;
          await run;
          return most;
        },
      };
    }

    /** A shopper pressing "pay" again and again: retries as told until the invoice is there. */
    it.each<[string, FaultRule, number]>([
      // Stored, then no answer: the client times out and finds it by its referrer, whatever the machine's load (a
      // latency fault shorter than the window lands late on a busy machine).
      [
        'no answer within the client timeout, stored (lands within the margin)',
        { hang: true, afterProcessing: true },
        1,
      ],
      ['a hang (never lands)', { hang: true }, 2],
      ['a dropped connection', { dropConnection: true }, 2],
      ['a 5xx before storing', { status: 503 }, 2],
      ['a 5xx after storing', { status: 500, afterProcessing: true }, 1],
    ])(
      '%s, then normal, with concurrent retries on two instances: one payable invoice at every moment',
      async (_, fault, attempt) => {
        sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, ...fault });
        const order = makeOrder();
        const watch = watchPayable(order.id);
        const first = await Promise.allSettled(
          [a, b, a, b].map((shop) => payUntilCreated(shop.provider, order)),
        );
        const again = await Promise.all([b, a].map((shop) => payUntilCreated(shop.provider, order)));
        expect(await watch.stop()).toBe(1);

        const outs = [
          ...first.map((r) => (r.status === 'fulfilled' ? r.value.out : null)),
          ...again.map((r) => r.out),
        ];
        const ids = new Set(outs.map((o) => (o as InitiatePaymentOutput | null)?.id));
        expect(ids.size).toBe(1);
        // The attempt that holds the invoice: `attempt` on a quiet machine; a later one when the client gave up
        // (250 ms) before the sandbox had read the request, which then never landed (none of these faults lands late).
        const held = (outs[0] as InitiatePaymentOutput).data;
        expect(held.attempt).toBeGreaterThanOrEqual(attempt);
        expect(held).toMatchObject({ referrer: referrerOf(order.id, held.attempt), statusCode: 1 });
        const listed = await atService(order.id);
        expect(listed.map((i) => i.referrer)).toEqual([referrerOf(order.id, held.attempt)]);
        // Closed attempts were closed as not created, never while their request could still land.
        for (const r of (await records(order.id)).slice(0, held.attempt - 1)) {
          expect(r).toMatchObject({ creationState: 'failed', gatewayId: null });
          expect(r.updatedAt.getTime()).toBeGreaterThanOrEqual(r.settlesAt!.getTime());
        }
      },
    );

    it('the caller is told "being confirmed, retry in N s" and the session shows it', async () => {
      sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, hang: true });
      const order = makeOrder();
      const error = await a.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentBeingConfirmedError);
      // What is left of the window, rounded up: it opened at the claim (+ CLAIM_HEADROOM_MS), under 2 s in all.
      const seconds = (error as PaymentBeingConfirmedError).retryAfterSeconds;
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(Math.ceil((LATE_WINDOW_MS + CLAIM_HEADROOM_MS) / 1000));
      expect((error as Error).message).toMatch(`payment is being confirmed, retry in ${seconds} s`);
      const session = await a.provider.getPaymentStatus({
        data: { invoiceRecordId: (error as PaymentBeingConfirmedError).invoiceRecordId },
      });
      expect(session.status).toBe('pending');
      expect(session.data).toMatchObject({ creationState: 'unknown', attentionReason: null });
      expect(Date.parse(session.data.confirmingUntil ?? '')).toBeGreaterThan(Date.now());
      await payUntilCreated(a.provider, order);
    });

    /** The first request lands after its window: the order already has attempt 2. */
    const lateFirst = (order: CheckoutOrder) =>
      lateFirstInvoice({ sandbox, provider: a.provider, gateway }, order);

    it('a late unpaid invoice is canceled at once when its webhook arrives; the order keeps its invoice', async () => {
      await webhooksTo(a);
      const order = makeOrder();
      const { out, late } = await lateFirst(order);
      await waitFor(async () => (await gateway.findInvoiceById(late.id))?.status.code === 6, 5000);
      await settleWebhooks();

      const [first, second] = await records(order.id);
      expect(first).toMatchObject({
        gatewayId: late.id,
        statusCode: 6,
        duplicateOf: out.id,
        openOrderId: null,
      });
      expect(second).toMatchObject({ id: out.id, statusCode: 1, openOrderId: order.id, duplicateOf: null });
      expect(canceled()).toEqual([
        expect.objectContaining({
          orderId: order.id,
          invoiceRecordId: first.id,
          keptInvoiceRecordId: out.id,
        }),
      ]);
      expect(alerts()).toEqual([]);
      // The host learns the duplicate's changes as a duplicate's: they do not move the order.
      const ofFirst = told().filter((c) => c.invoiceRecordId === first.id);
      expect(ofFirst.length).toBeGreaterThan(0);
      for (const c of ofFirst) expect(c.duplicateOf).toBe(out.id);
    });

    it('a late invoice that was paid marks the order paid (sweep); the newer one is canceled', async () => {
      const order = makeOrder();
      const { out, late } = await lateFirst(order);
      await sandbox.controls.pay(late.id);
      const swept = await a.app.get(ReconciliationService).sweep();
      expect(swept.error).toBeNull();
      await a.app.get(StatusChangeDispatcher).drain();

      const [first, second] = await records(order.id);
      expect(first).toMatchObject({
        gatewayId: late.id,
        statusCode: 5,
        openOrderId: order.id,
        duplicateOf: null,
      });
      expect(second).toMatchObject({ id: out.id, statusCode: 6, duplicateOf: first.id, openOrderId: null });
      expect((await gateway.findInvoiceById(second.gatewayId!))?.status.code).toBe(6);
      const paid = told().find((c) => c.invoiceRecordId === first.id && c.current.code === 5);
      expect(paid).toMatchObject({ orderId: order.id, current: { orderPaymentStatus: 'captured' } });
      expect(paid?.duplicateOf).toBeUndefined();
      // The checkout's own lookup now answers with the paid invoice: nothing new is created for a paid order.
      const again = await a.provider.initiatePayment(checkout(order, 'pix'));
      expect(again).toMatchObject({ id: first.id, status: 'captured' });
      expect(await atService(order.id)).toHaveLength(2);
    });

    it('both invoices paid: a duplicate_paid alert names both, for the store to refund one', async () => {
      const order = makeOrder();
      const { out, late } = await lateFirst(order);
      const second = (await records(order.id))[1];
      await sandbox.controls.pay(second.gatewayId!);
      await sandbox.controls.pay(late.id);
      await a.app.get(ReconciliationService).sweep();
      await a.app.get(ReconciliationService).sweep(); // a second pass raises nothing new

      const paidTwice = alerts().filter((x) => x.kind === 'duplicate_paid');
      expect(paidTwice).toHaveLength(1);
      expect(paidTwice[0]).toMatchObject({ orderId: order.id, relatedInvoiceRecordId: expect.any(String) });
      expect(paidTwice[0].message).toContain(late.id);
      expect(paidTwice[0].message).toContain(second.gatewayId!);
      expect(new Set([paidTwice[0].invoiceRecordId, paidTwice[0].relatedInvoiceRecordId])).toEqual(
        new Set([out.id, (await records(order.id))[0].id]),
      );
    });

    it('lookups that keep failing end in requires_more and an alert; the admin resolves it; a new checkout works', async () => {
      sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, dropConnection: true });
      sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503 });
      const order = makeOrder();
      const first = await a.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(PaymentBeingConfirmedError);
      const recordId = (first as PaymentBeingConfirmedError).invoiceRecordId;

      let last: unknown;
      await waitFor(async () => {
        last = await a.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e);
        return last instanceof InvoiceCreationNeedsAttentionError;
      }, 5000);
      expect((last as Error).message).toMatch(/could not ask the service/);
      const session = await a.provider.getPaymentStatus({ data: { invoiceRecordId: recordId } });
      expect(session.status).toBe('requires_more');
      expect(session.data.attentionReason).toMatch(/503|unavailable/i);
      expect(a.alerts.filter((x) => x.kind === 'creation_unresolved')).toEqual([
        expect.objectContaining({ orderId: order.id, invoiceRecordId: recordId }),
      ]);

      const admin = (path: string, body?: unknown) =>
        fetch(`${a.url}/admin/invoice-payments/invoices/${recordId}/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body ?? {}),
        });
      // Re-check now: the service still cannot be asked → 409 saying so; nothing changes.
      const recheck = await admin('recheck');
      expect(recheck.status).toBe(409);
      expect(((await recheck.json()) as { message: string }).message).toMatch(/needs a person/);
      // Bad input names the field.
      const bad = await admin('mark-not-created', { actor: '' });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(await bad.json())).toContain('actor');

      const marked = await admin('mark-not-created', {
        actor: 'ana@shop',
        note: 'no such invoice in the panel',
      });
      expect(marked.status).toBe(200);
      expect(await marked.json()).toMatchObject({ creationState: 'failed', attentionReason: null });
      const history = await db.dataSource
        .getRepository(InvoiceStatusHistory)
        .findBy({ invoiceRecordId: recordId, source: 'admin' });
      expect(history).toEqual([
        expect.objectContaining({
          actor: 'ana@shop',
          toCode: null,
          applied: false,
          createdAt: expect.any(Date),
        }),
      ]);
      expect(history[0].note).toMatch(/marked as not created by ana@shop: no such invoice in the panel/);
      // Resolved once: a second mark is a 409.
      expect((await admin('mark-not-created', { actor: 'ana@shop' })).status).toBe(409);

      sandbox.controls.clearFaults();
      const { out } = await payUntilCreated(a.provider, order);
      expect(out.data).toMatchObject({ attempt: 2, creationState: 'created', statusCode: 1 });
      expect(await atService(order.id)).toHaveLength(1);
    });

    it('an admin re-check settles an attempt once the service answers again', async () => {
      sandbox.controls.addFault({
        method: 'POST',
        path: '/invoices',
        times: 1,
        status: 500,
        afterProcessing: true,
      });
      sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 1 });
      const order = makeOrder();
      const error = (await a.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e)) as {
        invoiceRecordId: string;
      };
      const res = await fetch(`${a.url}/admin/invoice-payments/invoices/${error.invoiceRecordId}/recheck`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        creationState: 'created',
        statusCode: 1,
        gatewayId: expect.any(String),
      });
    });

    it('10,000 items are refused naming the field, with nothing sent; so is a total over the bound', async () => {
      const item = { id: 'sku', title: 'Pin', quantity: 1, unit_price: 100, requires_shipping: false };
      const many = makeOrder({
        items: Array.from({ length: 10_000 }, () => ({ ...item })),
        total: 1_000_000,
      });
      many.shipping_total = 0;
      many.discount_total = 0;
      const error = await a.provider.initiatePayment(checkout(many, 'pix')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckoutValidationError);
      expect((error as CheckoutValidationError).fields).toEqual({
        'order.items': ['must have at most 500 items (checkout.maxItems)'],
      });
      const huge = makeOrder({
        items: [{ ...item, unit_price: 2_000_000_000 }],
        total: 2_000_000_000,
        shipping_total: 0,
        discount_total: 0,
      });
      const tooMuch = await a.provider.initiatePayment(checkout(huge, 'pix')).catch((e: unknown) => e);
      expect((tooMuch as CheckoutValidationError).fields['order.total']).toEqual([
        'must be at most 10000000.00 (checkout.maxTotalCents)',
      ]);
      expect(await atService(many.id)).toEqual([]);
      expect(await atService(huge.id)).toEqual([]);
      expect(await records(many.id)).toEqual([]);
    });
  },
);

describeEachDatabase(
  'a service that answers an invoice number already held (a sandbox restarted without its data)',
  (kind) => {
    let db: TestDatabase;
    let sandbox: SandboxServer;
    let proxy: RewritingProxy;
    let shop: CheckoutApp;
    /** When set, created invoices come back with this number, as a service that reuses numbers would answer. */
    let reuse: string | null = null;

    beforeAll(async () => {
      db = await openCheckoutDatabase(kind);
      sandbox = await startSandbox();
      proxy = await startRewritingProxy(sandbox.url, (json) => {
        if (reuse) json.invoice.id = reuse;
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

    it('is a typed error naming the invoice and what to do; the order is not blocked by it', async () => {
      const earlier = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
      const order = makeOrder();
      reuse = earlier.data.gatewayId;
      const error = await shop.provider.initiatePayment(checkout(order, 'pix')).catch((e: unknown) => e);
      reuse = null;
      expect(error).toBeInstanceOf(InvoiceNumberClashError);
      expect(error).toMatchObject({ gatewayId: earlier.data.gatewayId, holderRecordId: earlier.id });
      expect((error as Error).message).toMatch(
        new RegExp(`invoice ${earlier.data.gatewayId}.*already holds that number.*cancel invoice`),
      );
      expect(httpAnswerOf(error)?.status).toBe(409);
      const [clashed] = await shop.records(order.id);
      expect(clashed).toMatchObject({ creationState: 'failed', openOrderId: null, gatewayId: null });
      expect(shop.alerts).toEqual([
        expect.objectContaining({
          kind: 'invoice_number_clash',
          orderId: order.id,
          relatedInvoiceRecordId: earlier.id,
        }),
      ]);
      // The earlier order's record is untouched; the next checkout of this order goes through.
      expect((await shop.records(earlier.data.orderId))[0]).toMatchObject({
        gatewayId: earlier.data.gatewayId,
      });
      const out = await shop.provider.initiatePayment(checkout(order, 'pix'));
      expect(out.data).toMatchObject({ attempt: 2, creationState: 'created', statusCode: 1 });
    });
  },
);
