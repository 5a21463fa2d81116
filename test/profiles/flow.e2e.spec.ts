import { INestApplication } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  CheckoutOrder,
  InvoicePaymentProvider,
  InvoicePaymentsEvents,
  InvoiceRecord,
  ORDER_PAYMENT_PORT,
  TrackingPostedEvent,
} from '../../src/index';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { ALL_SCOPES, startSandbox, TEST_CARDS, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase, referrerOf } from '../checkout/support';
import { RecordingOrderPort, waitFor } from '../support/app';
import { RootApp, startRootApp } from '../support/root-app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { OTHER_SERVICE_PROFILE, OtherService, startOtherService } from '../support/other-service';

/** A 7-character token: the spec states no length, so none is required. */
const SHORT_TOKEN = 'tok_all';

/**
 * 3 × R$ 50,00 with R$ 10,00 off the line (no whole number of cents a unit), an e-book of 19,90, 5,00 off the order
 * and 15,00 shipping: R$ 169,90.
 */
function oddLineDiscountOrder(): CheckoutOrder {
  const order = makeOrder({ total: 16990 });
  order.items[0] = { ...order.items[0], quantity: 3, unit_price: 5000, discount_total: 1000 };
  return order;
}

/**
 * The whole flow against two services that follow the spec but chose differently where it is silent: the sandbox
 * (the default wire profile) and another service, reached by saving its wire profile in the admin settings, with
 * no code change. Checkout by PIX, bank slip and card; recovery after an unknown creation outcome; webhooks; the
 * sweep; refund; tracking; the credential check. The other service reads a product's discount per unit (the
 * sandbox behind it runs with `productDiscount: 'unit'`, A1), the sandbox alone as the whole line's.
 */
describe.each(['default', 'other'] as const)(
  'the flow against a service with the %s wire profile',
  (profile) => {
    describeEachDatabase('flow', (kind) => {
      let db: TestDatabase;
      let sandbox: SandboxServer;
      let other: OtherService | null = null;
      let host: RootApp;
      let app: INestApplication;
      const posted: TrackingPostedEvent[] = [];

      beforeAll(async () => {
        db = await openCheckoutDatabase(kind);
        sandbox = await startSandbox({
          autoProcessCards: true,
          tokens: [{ token: SHORT_TOKEN, scopes: [...ALL_SCOPES] }],
          productDiscount: profile === 'other' ? 'unit' : 'line',
        });
        if (profile === 'other') other = await startOtherService(sandbox.url);
        host = await startRootApp(db, sandbox, {
          // Nothing configured in code but an unreachable placeholder: the admin settings below say everything.
          gateway: { baseUrl: 'http://127.0.0.1:9', accessToken: '', mode: 'sandbox' },
          checkout: { unknownOutcomeRecheckMs: 300 },
        });
        app = host.app;
        const saved = await host.admin('put', 'settings', {
          baseUrl: other?.url ?? sandbox.url,
          accessToken: SHORT_TOKEN,
          ...(profile === 'other' ? { wireProfile: OTHER_SERVICE_PROFILE } : {}),
        });
        expect(saved.status).toBe(200);
        host.on(InvoicePaymentsEvents.TrackingPosted, (e: TrackingPostedEvent) => posted.push(e));
      });
      afterAll(async () => {
        await host?.close();
        await other?.close();
        await sandbox?.close();
        await db?.destroy();
      });
      afterEach(() => sandbox.controls.clearFaults());

      const provider = () => app.get(InvoicePaymentProvider);
      const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
      const settle = () => host.settle();
      const told = (orderId: string) =>
        app
          .get<RecordingOrderPort>(ORDER_PAYMENT_PORT)
          .changes.filter((c) => c.orderId === orderId)
          .map((c) => c.current.code);
      /** Invoices as the sandbox behind either service holds them. */
      const atService = async (filter: Record<string, string>): Promise<Array<{ referrer?: string }>> => {
        const q = new URLSearchParams({ limit: '100', ...filter });
        const res = await fetch(`${sandbox.url}/invoices?${q}`, {
          headers: { Authorization: `Bearer ${SHORT_TOKEN}` },
        });
        return ((await res.json()) as { invoices: Array<{ referrer?: string }> }).invoices;
      };

      it('PIX: created with its QR data (read as PIX), paid at the service, the webhook marks the order paid', async () => {
        const order = makeOrder();
        const session = await provider().initiatePayment(checkout(order, 'pix'));
        expect(session.data).toMatchObject({ method: 'pix', statusCode: 1, creationState: 'created' });
        expect(session.data.pix?.payload).toMatch(/^000201/);
        const rec = await record(session.data.invoiceRecordId);
        expect(rec.method).toBe('pix');
        await sandbox.controls.pay(rec.gatewayId!);
        await settle();
        await waitFor(async () => (await record(rec.id)).statusCode === 5, 10_000, 'the paid status');
        await waitFor(() => told(order.id).includes(5), 10_000, 'the port told');
        if (other)
          expect(other.received.some((r) => r.method === 'POST' && r.path === '/v2/charges')).toBe(true);
      });

      it("a line discount of no whole cent a unit: the service's gross is the order's total", async () => {
        const order = oddLineDiscountOrder();
        const session = await provider().initiatePayment(checkout(order, 'pix'));
        const rec = await record(session.data.invoiceRecordId);
        expect(rec).toMatchObject({ grossCents: 16990, amountMismatch: false });
        expect(sandbox.controls.getInvoice(rec.gatewayId!)?.grossCents).toBe(16990);
        if (!other) return;
        // Per unit: one unit 3,34 off and two 3,33 off, the line's 10,00 exactly.
        const sent = other.received.filter((r) => r.method === 'POST' && r.path === '/v2/charges').pop();
        expect((sent?.body as { payment: { products: unknown[] } }).payment.products).toEqual([
          expect.objectContaining({ id: 'item_1', qnt: 1, amount: 50, discount: 3.34 }),
          expect.objectContaining({ id: 'item_1', qnt: 2, amount: 50, discount: 3.33 }),
          expect.objectContaining({ id: 'item_2', qnt: 1, amount: 19.9, discount: 0 }),
        ]);
      });

      it("the profile's productDiscount matters: the service's rule left out, its gross is not the order's", async () => {
        // The other service's profile without the field (its default, line), or per unit against the sandbox's line.
        const { productDiscount: _perUnit, ...ruleLeftOut } = OTHER_SERVICE_PROFILE;
        const wrong = profile === 'other' ? ruleLeftOut : { productDiscount: 'unit' };
        expect((await host.admin('put', 'settings', { wireProfile: wrong })).status).toBe(200);
        try {
          const session = await provider().initiatePayment(checkout(oddLineDiscountOrder(), 'pix'));
          const rec = await record(session.data.invoiceRecordId);
          // Read per unit, 10,00 a unit is 30,00 off (charged less); read per line, 3,34 + 3,33 is 6,67 off.
          expect(rec).toMatchObject({ grossCents: other ? 14990 : 17323, amountMismatch: true });
        } finally {
          const restored = await host.admin('put', 'settings', {
            wireProfile: other ? OTHER_SERVICE_PROFILE : null,
          });
          expect(restored.status).toBe(200);
        }
      });

      it('bank slip: created with its digitable line', async () => {
        const session = await provider().initiatePayment(checkout(makeOrder(), 'billet'));
        expect(session.data).toMatchObject({ method: 'billet', statusCode: 1 });
        expect(session.data.billet?.line).toMatch(/^\d{47}$/);
      });

      it('card: charged and paid by the service, told by webhook', async () => {
        const card = sandbox.controls.createCardToken({
          number: TEST_CARDS.approved,
          holder: 'MARIA SILVA',
          expiry: '12/30',
        });
        const order = makeOrder();
        const session = await provider().initiatePayment(checkout(order, 'card', card));
        expect(session.data.method).toBe('card');
        await settle();
        await waitFor(
          async () => (await record(session.data.invoiceRecordId)).statusCode === 5,
          10_000,
          'card paid',
        );
      });

      it('an unknown creation outcome (5xx after storing) is settled by the lookup: one invoice, not two', async () => {
        sandbox.controls.addFault({
          method: 'POST',
          path: '/invoices',
          status: 500,
          afterProcessing: true,
          times: 1,
        });
        const order = makeOrder();
        const session = await provider().initiatePayment(checkout(order, 'pix'));
        expect(session.data).toMatchObject({
          creationState: 'created',
          statusCode: 1,
          referrer: referrerOf(order.id, 1),
        });
        expect(await atService({ payment_id: order.id })).toHaveLength(1);
      });

      it('a dropped webhook is recovered by the sweep', async () => {
        const session = await provider().initiatePayment(checkout(makeOrder(), 'pix'));
        const rec = await record(session.data.invoiceRecordId);
        sandbox.controls.setWebhookFaults({ drop: 1 });
        await sandbox.controls.pay(rec.gatewayId!);
        await sandbox.controls.waitForDeliveries();
        expect((await record(rec.id)).statusCode).toBe(1);
        const swept = await app.get(ReconciliationService).sweep();
        expect(swept.error).toBeNull();
        await settle();
        expect((await record(rec.id)).statusCode).toBe(5);
      });

      it('refund: partial then the rest, through the profile refund request', async () => {
        const session = await provider().initiatePayment(checkout(makeOrder(), 'pix'));
        const rec = await record(session.data.invoiceRecordId);
        await sandbox.controls.pay(rec.gatewayId!);
        await settle();
        await waitFor(async () => (await record(rec.id)).statusCode === 5, 10_000, 'paid');
        const partial = await provider().refundPayment({ data: session.data, amount: 1_000 });
        expect(partial.data.statusCode).toBe(8);
        expect(sandbox.controls.getInvoice(rec.gatewayId!)?.statusCode).toBe(8);
        const rest = rec.amountCents - 1_000;
        const full = await provider().refundPayment({ data: session.data, amount: rest });
        expect(full.data.statusCode).toBe(9);
        if (other) expect(other.received.filter((r) => r.path === '/v2/charges/refunds')).toHaveLength(2);
      });

      it('tracking: a shipment posts its code through the profile tracking request', async () => {
        const order = makeOrder();
        const session = await provider().initiatePayment(checkout(order, 'pix'));
        const rec = await record(session.data.invoiceRecordId);
        await sandbox.controls.pay(rec.gatewayId!);
        await settle();
        await waitFor(async () => (await record(rec.id)).statusCode === 5, 10_000, 'paid');
        await app.get(EventEmitter2).emitAsync('order.shipment_created', {
          orderId: order.id,
          trackingCode: 'BR555666777BR',
          carrier: 'Correios',
        });
        await waitFor(() => posted.some((e) => e.orderId === order.id), 10_000, 'TrackingPosted');
        expect(sandbox.controls.getInvoice(rec.gatewayId!)?.tracking).toMatchObject({
          code: 'BR555666777BR',
        });
      });

      it('the credential check: every operation ok, judged by scopes or, without a status operation, by probes', async () => {
        const res = await host.admin('post', 'credentials/check');
        expect(res.status).toBe(200);
        const by = Object.fromEntries(
          (res.body.operations as Array<{ operation: string; result: string; checkedBy: string }>).map(
            (o) => [o.operation, `${o.result}/${o.checkedBy}`],
          ),
        );
        expect(res.body.ok).toBe(true);
        const write = profile === 'default' ? 'ok/scopes' : 'ok/probe';
        expect(by).toMatchObject({
          credentialStatus: profile === 'default' ? 'ok/call' : 'not_available/call',
          listInvoices: 'ok/call',
          createInvoice: write,
          cancelInvoice: write,
          refundInvoice: write,
        });
        // A probe never creates anything: every invoice at the service belongs to an order of these tests.
        const all = await atService({});
        expect(all.length).toBeGreaterThan(0);
        expect(all.filter((i) => !/^[a-z0-9]+:order_/.test(String(i.referrer ?? '')))).toEqual([]);
      });
    });
  },
);
