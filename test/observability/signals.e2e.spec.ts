import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, INestApplication, Module, Req, Res } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import request from 'supertest';
import {
  InvoicePaymentProvider,
  InvoicePaymentsHealthIndicator,
  InvoiceRecord,
  OpenInvoicesReconciler,
  RefundService,
} from '../../src/index';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { waitFor } from '../support/app';
import { RootApp, startRootApp } from '../support/root-app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { postDelivery } from '../webhooks/support';
import { registerSdk } from './otel-sdk';
import { value } from './scrape';

const TOKEN = `tok-${randomUUID()}`;
/** `health.maxInboxAgeMs`: a delivery waiting longer in the inbox turns /health down. */
const MAX_INBOX_AGE_MS = 2000;
/** Registered anew for each database's suite, so its series start at zero. */
let sdk: ReturnType<typeof registerSdk>;

/** The store's own routes: `/health` with terminus, `/metrics` with the Prometheus exporter's handler. */
@Controller()
class OpsController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly payments: InvoicePaymentsHealthIndicator,
  ) {}

  @Get('health')
  @HealthCheck()
  check() {
    return this.health.check([() => this.payments.isHealthy('invoice_payments')]);
  }

  @Get('metrics')
  metrics(@Req() req: IncomingMessage, @Res() res: ServerResponse) {
    sdk.prometheus.getMetricsRequestHandler(req, res);
  }
}

@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [OpsController] })
class OpsModule {}

describeEachDatabase('operator signals: terminus and Prometheus on a host', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: RootApp;
  let app: INestApplication;
  const order = makeOrder();

  beforeAll(async () => {
    sdk = registerSdk();
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({
      tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }],
      webhookRetry: { attempts: 3, baseDelayMs: 20 },
    });
    host = await startRootApp(
      db,
      sandbox,
      {
        gateway: { baseUrl: sandbox.url, accessToken: TOKEN, mode: 'sandbox', retry: { maxAttempts: 1 } },
        webhooks: {
          inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50, retryMaxDelayMs: 200, maxAttempts: 2 },
        },
        shipping: { pollIntervalMs: 50, maxAttempts: 2, backoff: { initialDelayMs: 20, maxDelayMs: 100 } },
        reconciliation: { intervalMs: 0 },
        health: { checkIntervalMs: 100, probeIntervalMs: 1000, maxInboxAgeMs: MAX_INBOX_AGE_MS },
      },
      [OpsModule],
    );
    app = host.app;
  });
  afterAll(async () => {
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
    await sdk.shutdown();
  });

  const settle = () => host.settle();
  const scrape = async () => (await request(host.url).get('/metrics').expect(200)).text;
  const health = () => request(host.url).get('/health');
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });

  it('after a checkout, a payment, a shipment and a refund, and faults, the series move as documented', async () => {
    // The host's request span: the module's spans are its children.
    const session = await sdk.tracer.startActiveSpan('host checkout', async (span) => {
      try {
        return await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
      } finally {
        span.end();
      }
    });
    const rec = await record(session.data.invoiceRecordId);
    await sandbox.controls.pay(rec.gatewayId!);
    await settle();
    await waitFor(async () => (await record(rec.id)).statusCode === 5, 10_000, 'paid');
    await app.get(EventEmitter2).emitAsync('order.shipment_created', {
      orderId: order.id,
      trackingCode: 'BR123456789BR',
      carrier: 'Correios',
    });
    const outbox = db.dataSource.getRepository(TrackingOutbox);
    await waitFor(
      async () => (await outbox.countBy({ orderId: order.id, status: 'sent' })) === 1,
      10_000,
      'posted',
    );
    await app
      .get(RefundService)
      .refund({ invoiceRecordId: rec.id, amountCents: 1000, requestedBy: 'provider', idempotencyKey: 'r1' });
    await settle();

    // Faults: the service fails a call; a forged delivery; a delivery naming an invoice the service does not know.
    sandbox.controls.addFault({ method: 'GET', path: '/invoices*', status: 500, times: 1 });
    await expect(app.get(GatewayClient).findInvoiceById(rec.gatewayId!)).rejects.toMatchObject({
      kind: 'unavailable',
    });
    const invoice = sandbox.controls.renderInvoice(rec.gatewayId!)!;
    await postDelivery(host.url, '/webhooks/invoice-payments', { event: 'invoice.update', invoice }, [
      'default',
    ]).expect(401);
    // A tracking code the service keeps refusing: given up after `shipping.maxAttempts`, a dead letter.
    const other = makeOrder();
    const otherSession = await app.get(InvoicePaymentProvider).initiatePayment(checkout(other, 'pix'));
    await sandbox.controls.pay((await record(otherSession.data.invoiceRecordId)).gatewayId!);
    await settle();
    sandbox.controls.addFault({ method: 'POST', path: '/invoices/tracking', status: 500 });
    await app
      .get(EventEmitter2)
      .emitAsync('order.shipment_created', { orderId: other.id, trackingCode: 'BR000000001BR' });
    await waitFor(
      async () => (await outbox.countBy({ orderId: other.id, status: 'failed' })) === 1,
      15_000,
      'dead',
    );
    sandbox.controls.clearFaults();
    await app.get(OpenInvoicesReconciler).runOnce();
    await settle();
    // A delivery whose invoice was looked up a moment ago waits out the lookup pace (webhooks.lookupWindowMs).
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    await waitFor(async () => (await inbox.countBy({ state: 'pending' })) === 0, 10_000, 'the inbox drained');

    const text = await scrape();
    const calls = 'invoice_payments_service_call_duration_seconds_count';
    expect(
      value(text, calls, { invoice_payments_operation: 'createInvoice', invoice_payments_outcome: 'ok' }),
    ).toBe(2);
    expect(
      value(text, calls, { invoice_payments_operation: 'refundInvoice', invoice_payments_outcome: 'ok' }),
    ).toBe(1);
    expect(
      value(text, calls, { invoice_payments_operation: 'addTrackingCode', invoice_payments_outcome: 'ok' }),
    ).toBe(1);
    expect(value(text, calls, { invoice_payments_outcome: 'unavailable', error_type: 'unavailable' })).toBe(
      1,
    );
    // Buckets in seconds, not the SDK's default (milliseconds) ones.
    expect(text).toMatch(/invoice_payments_service_call_duration_seconds_bucket\{[^}]*le="0.05"/);
    const deliveries = 'invoice_payments_webhook_deliveries_total';
    expect(value(text, deliveries, { invoice_payments_outcome: 'accepted' })).toBeGreaterThanOrEqual(2);
    expect(value(text, deliveries, { invoice_payments_outcome: 'forged' })).toBe(1);
    const changes = 'invoice_payments_status_changes_total';
    // Both payments arrive by webhook; the partial refund's change (still "captured") is applied by whichever
    // comes first, the refund's own answer or its webhook.
    const captured = (source: string) =>
      value(text, changes, { invoice_payments_source: source, invoice_payments_status: 'captured' });
    expect(captured('webhook')).toBeGreaterThanOrEqual(2);
    expect(captured('webhook') + captured('operation')).toBe(3);
    expect(
      value(text, changes, { invoice_payments_source: 'checkout', invoice_payments_status: 'pending' }),
    ).toBe(2);
    expect(value(text, 'invoice_payments_payment_port_delay_seconds_count')).toBe(2);
    expect(value(text, 'invoice_payments_tracking_codes_total', { invoice_payments_outcome: 'posted' })).toBe(
      1,
    );
    expect(value(text, 'invoice_payments_refunds_total', { invoice_payments_outcome: 'made' })).toBe(1);
    expect(
      value(text, 'invoice_payments_alerts_total', { invoice_payments_alert_kind: 'tracking_failed' }),
    ).toBe(1);
    expect(value(text, 'invoice_payments_dead_letters', { invoice_payments_queue: 'tracking' })).toBe(1);
    expect(value(text, 'invoice_payments_tracking_codes_total', { invoice_payments_outcome: 'failed' })).toBe(
      1,
    );
    expect(value(text, 'invoice_payments_inbox_backlog')).toBe(0);
    expect(value(text, 'invoice_payments_tracking_outbox_pending')).toBe(0);
    expect(value(text, 'invoice_payments_port_pending')).toBe(0);
    expect(value(text, 'invoice_payments_reconciliation_rounds_total')).toBe(1);
    expect(
      value(text, 'invoice_payments_reconciliation_findings_total', { invoice_payments_finding: 'checked' }),
    ).toBe(0);

    // A client span for each service call, the checkout's a child of the host's span.
    const spans = sdk.spans.getFinishedSpans();
    const create = spans.find((s) => s.name === 'invoice_payments createInvoice');
    expect(create?.spanContext().traceId).toBeDefined();
    const createParent = spans.find((s) => s.spanContext().spanId === create?.parentSpanContext?.spanId);
    expect(createParent?.name).toBe('host checkout');
    for (const op of ['createInvoice', 'findInvoiceById', 'refundInvoice', 'addTrackingCode']) {
      expect(spans.some((s) => s.name === `invoice_payments ${op}`)).toBe(true);
    }
    const failed = spans.find((s) => s.attributes['error.type'] === 'unavailable');
    expect(failed?.status.code).toBe(2);
    expect(spans.filter((s) => s.name === 'invoice_payments webhook.receive').length).toBeGreaterThanOrEqual(
      3,
    );
    expect(spans.some((s) => s.name === 'invoice_payments webhook.process')).toBe(true);

    // Nothing recorded holds a secret or personal data.
    const customer = order.customer!;
    const personal = [
      TOKEN,
      customer.email!,
      customer.first_name!,
      customer.last_name!,
      customer.document!,
      customer.document!.replace(/\D/g, ''),
    ];
    const recorded = JSON.stringify([
      spans.map((s) => [s.name, s.attributes, s.events, s.status]),
      await sdk.metricAttributes(),
    ]);
    for (const secret of personal) {
      expect(recorded).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
  });

  // The service's own faults are health.e2e.spec.ts' (over a hanging server); speed figures are bench/health.ts'.
  it('/health goes down when the inbox backs up, and up again after', async () => {
    // The faults of the test above were the latest calls: up once a probe (or a call) answers.
    await waitFor(async () => (await health()).status === 200, 10_000, '/health up');

    // The lookups are refused (rate limited: the service answers), so deliveries wait in the inbox.
    sandbox.controls.addFault({ method: 'GET', path: '/invoices*', status: 429, retryAfterSeconds: 1 });
    const second = await app.get(InvoicePaymentProvider).initiatePayment(checkout(makeOrder(), 'pix'));
    await sandbox.controls.pay((await record(second.data.invoiceRecordId)).gatewayId!);
    await waitFor(async () => (await health()).status === 503, 60_000, '/health down on the inbox');
    const backed = (await health()).body.error.invoice_payments;
    expect(backed.service.reachable).toBe(true);
    expect(backed.problems).toEqual([expect.stringContaining('inbox')]);
    // Down for the reason it names: a delivery still waits in the inbox, older than the threshold.
    expect(backed.inbox.count).toBeGreaterThanOrEqual(1);
    expect(backed.inbox.oldestAgeSeconds * 1000).toBeGreaterThan(MAX_INBOX_AGE_MS);
    expect(value(await scrape(), 'invoice_payments_inbox_backlog')).toBeGreaterThanOrEqual(1);

    sandbox.controls.clearFaults();
    await waitFor(async () => (await health()).status === 200, 60_000, '/health up after the inbox drained');
    await settle();
    expect((await record(second.data.invoiceRecordId)).statusCode).toBe(5);
  }, 180_000);
});
