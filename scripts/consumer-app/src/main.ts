import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { getRepositoryToken } from '@nestjs/typeorm';
import {
  CheckoutOrder,
  DEFAULT_SHIPMENT_EVENT,
  InvoicePaymentProvider,
  InvoicePaymentsHealthIndicator,
} from 'nestjs-invoice-payments';
import { DEFAULT_TOKEN, startSandbox } from 'nestjs-invoice-payments/sandbox';
import type { Repository } from 'typeorm';
import { AppModule } from './app.module.js';
import { Order } from './order.entity.js';

/**
 * The consumer test's host app, written only from the README: boots (on the database and with the options style
 * `AppModule` reads from the environment) against the sandbox, serves the admin page, runs one PIX checkout →
 * payment → webhook → port → shipment → tracking code at the sandbox, checks the module's health, then closes. With
 * `CONSUMER_SIGNALS=1` (the stack with the optional peers `@nestjs/terminus` and `@opentelemetry/api` installed) it
 * also serves `/health` with terminus and reads the module's metrics through the Prometheus exporter. It never calls
 * process.exit: the script checks that the process ends by itself.
 */
async function main(): Promise<void> {
  const signals = process.env.CONSUMER_SIGNALS === '1' ? await loadSignals() : null;
  const meters = await signals?.startMetrics();
  const sandbox = await startSandbox();
  process.env.PAYMENTS_BASE_URL = sandbox.url;
  process.env.PAYMENTS_TOKEN = DEFAULT_TOKEN;
  process.env.PAYMENTS_ADMIN_KEY = randomBytes(24).toString('hex');
  process.env.PAYMENTS_KEY_K1 = randomBytes(32).toString('base64');

  const app = await NestFactory.create(AppModule.register(signals ? [signals.HealthModule] : []), {
    logger: ['error', 'warn'],
  });
  app.setGlobalPrefix('api');
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  try {
    // The webhook route is mounted by the module; with a global prefix, the public URL carries it.
    const saved = await fetch(`${url}/api/admin/invoice-payments/settings`, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${process.env.PAYMENTS_ADMIN_KEY}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ publicWebhookUrl: `${url}/api/webhooks/invoice-payments` }),
    });
    check(saved.status === 200, `admin settings saved (HTTP ${saved.status})`);
    const page = await fetch(`${url}/api/admin/invoice-payments/`);
    check(
      page.status === 200 && (page.headers.get('content-type') ?? '').startsWith('text/html'),
      `the admin page served (HTTP ${page.status})`,
    );

    const orders = app.get<Repository<Order>>(getRepositoryToken(Order));
    const order: CheckoutOrder = {
      id: `order-${Date.now()}`,
      display_id: 1001,
      currency_code: 'brl',
      total: 15990,
      shipping_total: 990,
      items: [{ id: 'item-1', title: 'Camiseta', quantity: 1, unit_price: 15000 }],
      customer: {
        first_name: 'Maria',
        last_name: 'Silva',
        email: 'maria@example.com',
        document: '529.982.247-25',
      },
      shipping_address: {
        address_1: 'Rua Augusta, 100',
        district: 'Consolação',
        city: 'São Paulo',
        province: 'SP',
        postal_code: '01305-000',
        country_code: 'br',
      },
    };
    await orders.save({ id: order.id, total: order.total });

    const session = await app.get(InvoicePaymentProvider).initiatePayment({
      amount: order.total,
      currency_code: 'brl',
      data: { order, method: 'pix' },
    });
    check(Boolean(session.data.pix?.payload), 'PIX copy-and-paste code returned');
    const invoiceNumber = session.data.gatewayId!;
    console.log(`checkout: invoice ${invoiceNumber}, PIX code ${session.data.pix!.payload!.slice(0, 24)}...`);

    await sandbox.controls.pay(invoiceNumber);
    await waitFor(
      async () => (await orders.findOneByOrFail({ id: order.id })).paymentStatus === 'captured',
      'the webhook to reach the order port (order captured)',
    );
    console.log('webhook: order marked captured by the port');

    app.get(EventEmitter2).emit(DEFAULT_SHIPMENT_EVENT, {
      orderId: order.id,
      trackingCode: 'BR123456789BR',
      carrier: 'Correios',
    });
    await waitFor(
      () => sandbox.controls.getInvoice(invoiceNumber)?.tracking?.code === 'BR123456789BR',
      'the tracking code to reach the sandbox',
    );
    console.log('shipping: tracking code BR123456789BR received by the sandbox');

    // Without terminus the indicator answers all the same; with it, /health is the host's route.
    const health = await app.get(InvoicePaymentsHealthIndicator).isHealthy();
    check(health.invoice_payments.status === 'up', `the module healthy (${JSON.stringify(health)})`);
    if (meters) {
      const answer = await fetch(`${url}/api/health`);
      check(answer.status === 200, `/health up (HTTP ${answer.status})`);
      const scraped = await meters.scrape();
      for (const series of [
        'invoice_payments_service_call_duration_seconds_count{invoice_payments_operation="createInvoice"',
        'invoice_payments_status_changes_total{invoice_payments_source="webhook"',
        'invoice_payments_tracking_codes_total{invoice_payments_outcome="posted"',
        'invoice_payments_inbox_backlog',
      ]) {
        check(scraped.includes(series), `the scrape has ${series}`);
      }
      await waitFor(
        () => meters.childOfServerSpan('invoice_payments webhook.receive'),
        "the module's webhook span exported as a child of the HTTP server span",
      );
      console.log("signals: /health up, the module's series on the Prometheus scrape");
    }
  } finally {
    await app.close();
    await sandbox.close();
    await meters?.stop();
  }
  const { CONSUMER_DATABASE = 'sqlite', CONSUMER_OPTIONS = 'forRootAsync' } = process.env;
  console.log(
    `consumer app (${CONSUMER_DATABASE}, ${CONSUMER_OPTIONS}): every step passed; closed, waiting for exit`,
  );
}

/** What `signals.ts` exports: the file the consumer test adds only on the stack with the optional peers. */
interface Signals {
  HealthModule: Type<unknown>;
  /** The SDK preloaded by otel.cjs / otel.mjs (docs/observability.md), read back. */
  startMetrics(): Promise<{
    scrape(): Promise<string>;
    childOfServerSpan(name: string): boolean;
    stop(): Promise<void>;
  }>;
}

async function loadSignals(): Promise<Signals> {
  const path = './signals.js'; // a variable: TypeScript does not resolve it, so the app type-checks without the peers
  return (await import(path)) as Signals;
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`failed: ${what}`);
}

async function waitFor(
  test: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
