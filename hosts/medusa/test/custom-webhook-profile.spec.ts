import http from 'node:http';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Modules } from '@medusajs/framework/utils';
import type { IPaymentModuleService } from '@medusajs/framework/types';
import { moduleIntegrationTestRunner } from '@medusajs/test-utils';
import {
  closeInvoicePaymentsRuntimes,
  type InvoicePaymentsMedusaOptions,
} from 'nestjs-invoice-payments/medusa';
import { startSandbox, type SandboxServer } from 'nestjs-invoice-payments/sandbox';

/**
 * A store whose service sends its own webhook shape (`{ evento, id_entrega, origem, enviado_em, dados: { cobranca } }`)
 * configures it once, in the provider's `gateway.profile.webhook`; Medusa's webhook route then hands such deliveries
 * to the provider, which reads them with that profile (the same intake as the module's own route).
 */
const PROVIDER_ID = 'pp_invoice-payments_custom';
const HOOK_PROVIDER = 'invoice-payments_custom';
const CPF = '52998224725';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  data: Record<string, unknown> & { invoice?: { id: string; status: { code: number } } };
}

const deliveries: Delivery[] = [];
let receiver: http.Server;
let sandbox: SandboxServer;

const providerOptions: InvoicePaymentsMedusaOptions = {
  gateway: {
    baseUrl: '',
    accessToken: 'sandbox-token',
    mode: 'sandbox',
    retry: { maxAttempts: 1 },
    profile: {
      webhook: {
        invoice: ['dados.cobranca'],
        event: ['evento'],
        deliveryId: ['id_entrega'],
        webhookId: ['origem'],
        sentAt: ['enviado_em'],
        test: ['teste'],
      },
    },
  },
  checkout: { publicWebhookUrl: '' },
  databaseUrl: '',
  // Apart from the other suite's tables: this runtime's workers see only its own invoices.
  databaseSchema: 'invoice_payments_custom',
  logLevels: ['error'],
};

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, data: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
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

/** The sandbox's delivery of invoice `id` in status `code`, as sent (the sandbox speaks the default shape). */
async function deliveryOf(id: string, code: number): Promise<Delivery> {
  await sandbox.controls.waitForDeliveries(5000);
  const found = deliveries.find((d) => d.data.invoice?.id === id && d.data.invoice.status.code === code);
  if (!found) throw new Error(`no delivery of invoice ${id} in status ${code}`);
  return found;
}

/** The same delivery in this store's service's shape. */
function reshaped(delivery: Delivery): Record<string, unknown> {
  const d = delivery.data;
  return {
    evento: d.event,
    id_entrega: d.delivery_id,
    origem: d.webhook,
    enviado_em: d.sent_at,
    dados: { cobranca: d.invoice },
  };
}

moduleIntegrationTestRunner<IPaymentModuleService>({
  moduleName: Modules.PAYMENT,
  dbName: process.env.NIP_MEDUSA_DB,
  resolve: dirname(require.resolve('@medusajs/payment/package.json')),
  moduleOptions: {
    providers: [{ resolve: 'nestjs-invoice-payments/medusa', id: 'custom', options: providerOptions }],
  },
  testSuite: ({ service }) => {
    const hook = (data: Record<string, unknown>, headers: http.IncomingHttpHeaders) =>
      service.getWebhookActionAndData({
        provider: HOOK_PROVIDER,
        payload: { data, rawData: Buffer.from(JSON.stringify(data)), headers },
      });

    it("reads the store's own webhook shape through the provider: paid → captured for Medusa's session", async () => {
      const collection = await service.createPaymentCollections({ currency_code: 'brl', amount: 50 });
      const pix = await service.createPaymentSession(collection.id, {
        provider_id: PROVIDER_ID,
        amount: 50,
        currency_code: 'brl',
        data: { method: 'pix', document: CPF },
        context: {
          customer: { id: 'cus_02', email: 'bia@example.com', first_name: 'Bia', last_name: 'Lima' },
        },
      });
      const invoiceId = pix.data!.gatewayId as string;
      await sandbox.controls.pay(invoiceId);
      const paid = await deliveryOf(invoiceId, 5);

      // The default shape is not this store's: the profile in force finds no invoice in it.
      expect(await hook(paid.data, paid.headers)).toEqual({ action: 'not_supported' });
      // The store's shape, same token: read with the profile, confirmed with the service, applied.
      expect(await hook(reshaped(paid), paid.headers)).toEqual({
        action: 'captured',
        data: { session_id: pix.id, amount: 50 },
      });
      const payment = await service.authorizePaymentSession(pix.id, {});
      expect(payment).toMatchObject({ payment_session_id: pix.id, provider_id: PROVIDER_ID });
    });
  },
});
