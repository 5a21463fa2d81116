import http from 'node:http';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { Modules } from '@medusajs/framework/utils';
import type { IPaymentModuleService } from '@medusajs/framework/types';
import { moduleIntegrationTestRunner } from '@medusajs/test-utils';
import invoicePaymentsProvider, {
  closeInvoicePaymentsRuntimes,
  recordMedusaShipment,
  startedInvoicePaymentsRuntimes,
  syncMedusaPayments,
  type InvoicePaymentsMedusaOptions,
} from 'nestjs-invoice-payments/medusa';
import { startSandbox, TEST_CARDS, type SandboxServer } from 'nestjs-invoice-payments/sandbox';

/** The provider's id in `medusa-config.ts`: Medusa registers it as `pp_invoice-payments_br`. */
const PROVIDER_ID = 'pp_invoice-payments_br';
/** What Medusa's `/hooks/payment/:provider` route passes for `/hooks/payment/invoice-payments_br`. */
const HOOK_PROVIDER = 'invoice-payments_br';
const CPF = '52998224725';

/** A delivery as Medusa's webhook route hands it on: parsed body, raw body, Node's header record. */
interface Delivery {
  headers: http.IncomingHttpHeaders;
  rawData: Buffer;
  data: { event: string; invoice: { id: string; status: { code: number } } | null };
}

const deliveries: Delivery[] = [];
let receiver: http.Server;
let sandbox: SandboxServer;

/** Filled in `beforeAll` (the sandbox and receiver ports), before Medusa builds the provider in `beforeEach`. */
const providerOptions: InvoicePaymentsMedusaOptions = {
  gateway: { baseUrl: '', accessToken: 'sandbox-token', mode: 'sandbox', retry: { maxAttempts: 1 } },
  checkout: { publicWebhookUrl: '' },
  databaseUrl: '',
  logLevels: ['error'],
};

beforeAll(async () => {
  // Medusa's webhook route: answers 200 at once and hands the delivery on (here: to the test).
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawData = Buffer.concat(chunks);
      deliveries.push({ headers: req.headers, rawData, data: JSON.parse(rawData.toString('utf8')) });
      res.writeHead(200).end('OK');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  sandbox = await startSandbox({ autoProcessCards: false, webhookRetry: { attempts: 2, baseDelayMs: 20 } });
  providerOptions.gateway.baseUrl = sandbox.url;
  providerOptions.checkout!.publicWebhookUrl = `http://127.0.0.1:${port}/hooks/payment/${HOOK_PROVIDER}`;
  const { DB_USERNAME, DB_HOST, DB_PORT, NIP_MEDUSA_DB } = process.env;
  providerOptions.databaseUrl = `postgres://${DB_USERNAME}@${DB_HOST}:${DB_PORT}/${NIP_MEDUSA_DB}`;
});

afterAll(async () => {
  await closeInvoicePaymentsRuntimes();
  await sandbox?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** The delivery that reported `code` for the sandbox invoice `id`. */
async function deliveryOf(id: string, code: number): Promise<Delivery> {
  await sandbox.controls.waitForDeliveries(5000);
  const found = deliveries.find((d) => d.data.invoice?.id === id && d.data.invoice.status.code === code);
  if (!found) throw new Error(`no delivery of invoice ${id} in status ${code}`);
  return found;
}

/** Polls until `check` holds (a guard against hanging, not a speed assertion). */
async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls an async condition (a guard against hanging, not a speed assertion). */
async function untilAsync(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Rows of the module's table (in its own schema) where `column` = `value` and `condition` holds. */
async function moduleRows(table: string, column: string, value: string, condition: string): Promise<number> {
  const client = new Client({ connectionString: providerOptions.databaseUrl });
  await client.connect();
  try {
    const sql = `SELECT count(*)::int AS n FROM invoice_payments.${table} WHERE ${column} = $1 AND ${condition}`;
    return (await client.query(sql, [value])).rows[0].n;
  } finally {
    await client.end();
  }
}

const customer = {
  id: 'cus_01',
  email: 'ana@example.com',
  first_name: 'Ana',
  last_name: 'Souza',
  phone: '11987654321',
  metadata: { cpf: CPF },
};

moduleIntegrationTestRunner<IPaymentModuleService>({
  moduleName: Modules.PAYMENT,
  dbName: process.env.NIP_MEDUSA_DB,
  resolve: dirname(require.resolve('@medusajs/payment/package.json')),
  moduleOptions: {
    providers: [{ resolve: 'nestjs-invoice-payments/medusa', id: 'br', options: providerOptions }],
  },
  testSuite: ({ service }) => {
    /** What Medusa's payment-webhook subscriber does with a delivery its route received. */
    function hook(delivery: Delivery, headers: Record<string, unknown> = delivery.headers) {
      return service.getWebhookActionAndData({
        provider: HOOK_PROVIDER,
        payload: { data: delivery.data, rawData: delivery.rawData, headers },
      });
    }

    async function session(amount: number, data: Record<string, unknown>) {
      const collection = await service.createPaymentCollections({ currency_code: 'brl', amount });
      return service.createPaymentSession(collection.id, {
        provider_id: PROVIDER_ID,
        amount,
        currency_code: 'brl',
        data,
        context: { customer },
      });
    }

    it('PIX paid while Medusa is down → captured after restart, with default settings (loader + sync job)', async () => {
      // Medusa booted the Payment module (beforeEach): the provider's loader started the runtime and its workers,
      // before any checkout or webhook (the previous test's runtime was closed).
      await untilAsync(async () => (await startedInvoicePaymentsRuntimes()).length === 1);
      const pix = await session(50, { method: 'pix', document: CPF });
      // The customer's CPF is not in session data the storefront can read.
      expect(pix.data!.document ?? null).toBeNull();
      expect(JSON.stringify(pix.data)).not.toContain(CPF);
      const invoiceId = pix.data!.gatewayId as string;

      // Medusa goes down: the module's workers stop; the service's webhooks reach nobody.
      await closeInvoicePaymentsRuntimes();
      await sandbox.controls.pay(invoiceId);
      await sandbox.controls.waitForDeliveries(5000);
      expect(await moduleRows('invoice_payments_invoice', 'gateway_id', invoiceId, 'status_code = 5')).toBe(
        0,
      );

      // Medusa starts again: it runs the provider module's loader, as at boot.
      const loaders = (invoicePaymentsProvider as { loaders: Array<(arg: object) => Promise<void>> }).loaders;
      for (const loader of loaders) await loader({ options: providerOptions });
      await untilAsync(
        async () =>
          (await moduleRows('invoice_payments_invoice', 'gateway_id', invoiceId, 'status_code = 5')) === 1,
      );

      // The package's job hands Medusa the action a webhook would have: here the step of Medusa's
      // processPaymentWorkflow this module runner can run (authorize the session; the provider says captured).
      const [app] = await startedInvoicePaymentsRuntimes();
      const actions: unknown[] = [];
      const process = async (input: { action: string; data: { session_id: string; amount: number } }) => {
        actions.push(input);
        return service.authorizePaymentSession(input.data.session_id, {});
      };
      const first = await syncMedusaPayments(app, service as never, process);
      expect(first).toMatchObject({ processed: 1, errors: 0 });
      expect(actions).toEqual([{ action: 'captured', data: { session_id: pix.id, amount: 50 } }]);
      const [payment] = await service.listPayments({ payment_session_id: pix.id });
      expect(payment.captured_at).toBeTruthy();
      // Run again: Medusa already shows it paid, nothing is processed twice.
      expect(await syncMedusaPayments(app, service as never, process)).toMatchObject({ processed: 0 });
      await closeInvoicePaymentsRuntimes();
    });

    it("PIX: pending session, paid in the sandbox, webhook → captured for Medusa's session, payment captured, refunded in two steps", async () => {
      const pix = await session(134.8, { method: 'pix', amount: 1 });
      expect(pix.status).toBe('pending');
      expect(pix.data).toMatchObject({ session_id: pix.id, method: 'pix', amountCents: 13480 });
      const invoiceId = pix.data!.gatewayId as string;
      // The invoice carries Medusa's amount in cents, not the client's `amount: 1`.
      expect(sandbox.controls.getInvoice(invoiceId)).toMatchObject({ grossCents: 13480, statusCode: 1 });
      expect(await service.authorizePaymentSession(pix.id, {})).toBeNull();
      expect((await service.retrievePaymentSession(pix.id)).status).toBe('pending_authorization');

      await sandbox.controls.pay(invoiceId);
      const action = await hook(await deliveryOf(invoiceId, 5));
      expect(action).toEqual({ action: 'captured', data: { session_id: pix.id, amount: 134.8 } });

      const payment = await service.authorizePaymentSession(pix.id, {});
      expect(payment).toMatchObject({ payment_session_id: pix.id, provider_id: PROVIDER_ID });
      const captured = await service.retrievePayment(payment!.id, { relations: ['captures'] });
      expect(captured.captured_at).toBeTruthy();
      expect(captured.captures).toHaveLength(1);

      // Shipped: the tracking code goes to the paid invoice among the order's sessions (the other is unknown).
      const shipped = await recordMedusaShipment(providerOptions, {
        sessionIds: ['payses_other_provider', pix.id],
        trackingCode: 'BR123456789BR',
      });
      expect(shipped).toMatchObject({ orderId: pix.id, code: 'BR123456789BR', outcome: 'queued' });
      await until(() => sandbox.controls.getInvoice(invoiceId)!.tracking?.code === 'BR123456789BR');

      await service.refundPayment({ payment_id: payment!.id, amount: 34.8 });
      expect(sandbox.controls.getInvoice(invoiceId)!.refunds.map((r) => r.amountCents)).toEqual([3480]);
      await service.refundPayment({ payment_id: payment!.id, amount: 100 });
      const refunded = sandbox.controls.getInvoice(invoiceId)!;
      expect(refunded.refunds.map((r) => r.amountCents)).toEqual([3480, 10000]);
      expect(refunded.statusCode).toBe(9);
      const after = await service.retrievePayment(payment!.id, { relations: ['refunds'] });
      expect(after.refunds!.map((r) => Number(r.amount)).sort()).toEqual([100, 34.8]);
    });

    it('card: authorized by the service → authorized session and payment; canceling the payment cancels the invoice', async () => {
      const token = sandbox.controls.createCardToken({
        number: TEST_CARDS.approved,
        holder: 'ANA SOUZA',
        expiry: '12/40',
      });
      const card = await session(59.9, {
        method: 'card',
        card: { token: token.token, expiry: '12/40', holder_name: 'ANA SOUZA' },
        installments: 2,
      });
      const invoiceId = card.data!.gatewayId as string;
      await sandbox.controls.setStatus(invoiceId, 4);
      const action = await hook(await deliveryOf(invoiceId, 4));
      expect(action).toEqual({ action: 'authorized', data: { session_id: card.id, amount: 59.9 } });

      const payment = await service.authorizePaymentSession(card.id, {});
      expect(payment).toMatchObject({ payment_session_id: card.id, captured_at: null });
      expect((await service.retrievePaymentSession(card.id)).status).toBe('authorized');

      const canceled = await service.cancelPayment(payment!.id);
      expect(canceled.canceled_at).toBeTruthy();
      expect(sandbox.controls.getInvoice(invoiceId)!.statusCode).toBe(6);
    });

    it('a forged delivery moves nothing (the service says what applies); dropping an unpaid session cancels its invoice', async () => {
      const pix = await session(20, { method: 'pix' });
      const invoiceId = pix.data!.gatewayId as string;
      const created = await deliveryOf(invoiceId, 1);
      // A well-formed token line the service never issued, on a body that claims "paid": a delivery is only a
      // trigger, so the module asks the service, which says the invoice still awaits payment.
      const forgedToken = Buffer.from(':not-a-service-token').toString('base64');
      const claimsPaid = structuredClone(created);
      (claimsPaid.data as Record<string, unknown>).delivery_id = `forged-${invoiceId}`;
      claimsPaid.data.invoice!.status.code = 5;
      const action = await hook(claimsPaid, { ...created.headers, webhook: `default, ${forgedToken}` });
      expect(action).toEqual({ action: 'pending', data: { session_id: pix.id, amount: 20 } });
      // The record holds what the service says: still unpaid.
      expect(await moduleRows('invoice_payments_invoice', 'gateway_id', invoiceId, 'status_code = 1')).toBe(
        1,
      );

      const other = await session(15.5, { method: 'pix' });
      await service.deletePaymentSession(other.id);
      expect(sandbox.controls.getInvoice(other.data!.gatewayId as string)!.statusCode).toBe(6);
    });
  },
});
