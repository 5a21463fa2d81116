import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { generateCpf } from '@brazilian-utils/brazilian-utils';
import { INestApplication } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../../src/core/events';
import { InvoiceStatusService } from '../../src/core/invoice-status.service';
import { ORDER_PAYMENT_PORT, PaymentStatusChange } from '../../src/core/ports';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { Invoice } from '../../src/gateway/types';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { resolveWebhooksOptions, type WebhooksOptions } from '../../src/options/webhooks.options';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { RecordingOrderPort, sandboxGateway } from '../support/app';
import { DatabaseKind, TestDatabase } from '../support/databases';
import { startRootApp } from '../support/root-app';
import { openCheckoutDatabase } from '../checkout/support';
import { insertInvoiceRecord } from '../core/fixtures';
import { IsNull, type DataSource } from 'typeorm';

export { RecordingOrderPort, SANDBOX_TOKEN } from '../support/app';

/** The webhook apps' referrer namespace: a record found by referrer is linked only under the store's own. */
const REFERRER_NAMESPACE = 'webhooktests';

/** A referrer as the checkout makes one, under the webhook apps' namespace. */
export function ourReferrer(): string {
  return `${REFERRER_NAMESPACE}:ref-${randomUUID()}`;
}

/** What `createSandboxInvoice` charges (2 × 10.50). */
const SANDBOX_INVOICE_CENTS = 2_100;

/** A database with all the module's tables, created by its migrations: a webhook app is the whole module. */
export function openWebhooksDatabase(kind: DatabaseKind, poolSize?: number): Promise<TestDatabase> {
  return openCheckoutDatabase(kind, poolSize);
}

export interface WebhookApp {
  app: INestApplication;
  /** Base URL of the app, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Full URL of the webhook route. */
  webhookUrl: string;
  port: RecordingOrderPort;
  busChanges: PaymentStatusChange[];
  alerts: InvoicePaymentsAlert[];
  statuses: InvoiceStatusService;
  processor: WebhookInboxProcessor;
  dispatcher: StatusChangeDispatcher;
  gateway: GatewayClient;
  /** Waits until the inbox and the notification outbox are idle. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The whole module ({@link startRootApp}) listening on loopback, talking to the sandbox (or a proxy in front of it)
 * with a real GatewayClient and no retries; `webhooks` replaces its test defaults section by section.
 */
export async function startWebhookApp(
  db: TestDatabase,
  sandbox: SandboxServer | { url: string },
  webhooks: WebhooksOptions = {},
  configure?: (app: INestApplication) => void,
  overrides?: Array<[unknown, unknown]>,
): Promise<WebhookApp> {
  const host = await startRootApp(
    db,
    sandbox,
    {
      gateway: sandboxGateway(sandbox.url),
      webhooks: { inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50, retryMaxDelayMs: 500 }, ...webhooks },
      notifications: { pollIntervalMs: 200, retryBaseDelayMs: 20, retryMaxDelayMs: 200 },
      // The reconciliation's audit on demand only: the schedule of open invoices stays off here.
      reconciliation: { intervalMs: 0 },
      checkout: { referrerNamespace: REFERRER_NAMESPACE },
    },
    [],
    { logger: ['error', 'warn'], configure, overrides },
  );
  const { app, url, close } = host;
  const path = resolveWebhooksOptions(webhooks).path;

  const events = app.get(EventEmitter2);
  const busChanges: PaymentStatusChange[] = [];
  const alerts: InvoicePaymentsAlert[] = [];
  events.on(InvoicePaymentsEvents.StatusChanged, (c: PaymentStatusChange) => busChanges.push(c));
  events.on(InvoicePaymentsEvents.Alert, (a: InvoicePaymentsAlert) => alerts.push(a));
  const processor = app.get(WebhookInboxProcessor);
  const dispatcher = app.get(StatusChangeDispatcher);

  return {
    app,
    url,
    webhookUrl: `${url}/${path}`,
    port: app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT),
    busChanges,
    alerts,
    statuses: app.get(InvoiceStatusService),
    processor,
    dispatcher,
    gateway: app.get(GatewayClient),
    async settle() {
      await processor.drain();
      await dispatcher.drain();
    },
    close,
  };
}

/** Creates a PIX invoice at the sandbox through the real gateway client. */
export async function createSandboxInvoice(
  gateway: GatewayClient,
  opts: { referrer?: string; webhook?: string } = {},
): Promise<{ invoice: Invoice; referrer: string }> {
  const referrer = opts.referrer ?? ourReferrer();
  const invoice = await gateway.createInvoice({
    client: { name: 'Ana Souza', document: generateCpf(), email: 'ana@example.com' },
    payment: {
      method: 'pix',
      physical: false,
      id: referrer,
      referrer,
      ...(opts.webhook ? { webhook: opts.webhook } : {}),
      products: [{ id: 'sku-1', title: 'Mug', quantity: 2, discountCents: 0, unitAmountCents: 1050 }],
    },
  });
  return { invoice, referrer };
}

/**
 * A PIX invoice at the sandbox whose deliveries go to `app`, and its record written as the checkout writes it: by
 * referrer before the invoice is created (its first delivery may arrive before the number is stored), then the
 * number. A record written only after the invoice exists would miss that delivery: the route acknowledges a
 * delivery naming nothing this store holds, and the service does not send it again.
 */
export async function recordedSandboxInvoice(
  app: Pick<WebhookApp, 'gateway' | 'webhookUrl'>,
  dataSource: DataSource,
): Promise<{ id: string; referrer: string; rec: InvoiceRecord }> {
  const referrer = ourReferrer();
  const rec = await insertInvoiceRecord(dataSource, {
    orderId: referrer, // the payment id `createSandboxInvoice` sends
    amountCents: SANDBOX_INVOICE_CENTS,
    gatewayId: null,
    creationState: 'pending', // as the checkout writes it before asking
    referrer,
  });
  const { invoice } = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl, referrer });
  // Unless a delivery linked it first (the same number).
  await dataSource
    .getRepository(InvoiceRecord)
    .update({ id: rec.id, gatewayId: IsNull() }, { gatewayId: invoice.id });
  return { id: invoice.id, referrer, rec: { ...rec, gatewayId: invoice.id } };
}

/**
 * A PIX invoice created at the sandbox, as the service renders it in deliveries, and the service token its
 * deliveries carry (the sandbox's first registered webhook). With `dataSource`, the invoice's record is written
 * too, as the checkout would have: the route takes only deliveries naming an invoice this store holds.
 */
export async function sandboxDeliveryParts(
  gateway: GatewayClient,
  sandbox: SandboxServer,
  dataSource?: DataSource,
): Promise<{ invoice: WireInvoiceCurrent; serviceToken: string }> {
  const created = await createSandboxInvoice(gateway);
  const invoice = sandbox.controls.renderInvoice(created.invoice.id);
  if (!invoice) throw new Error(`the sandbox does not render invoice ${created.invoice.id}`);
  if (dataSource) {
    await insertInvoiceRecord(dataSource, {
      amountCents: SANDBOX_INVOICE_CENTS,
      gatewayId: created.invoice.id,
      referrer: created.referrer,
    });
  }
  return { invoice, serviceToken: sandbox.controls.webhooks()[0].token };
}

/** What a suite posting deliveries to one webhook app starts from. */
export interface DeliveryScene {
  db: TestDatabase;
  sandbox: SandboxServer;
  app: WebhookApp;
  invoice: WireInvoiceCurrent;
  serviceToken: string;
}

/** A database, a sandbox, the webhook app in front of it, and a sandbox invoice with its service token. */
export async function openDeliveryScene(
  kind: DatabaseKind,
  sandboxOptions: Parameters<typeof startSandbox>[0] = {},
): Promise<DeliveryScene> {
  const db = await openWebhooksDatabase(kind);
  const sandbox = await startSandbox(sandboxOptions);
  const app = await startWebhookApp(db, sandbox);
  return { db, sandbox, app, ...(await sandboxDeliveryParts(app.gateway, sandbox, db.dataSource)) };
}

export async function closeDeliveryScene(scene: Partial<DeliveryScene>): Promise<void> {
  await scene.app?.close();
  await scene.sandbox?.close();
  await scene.db?.destroy();
}

/** The `Webhook` token line: base64 of `merchant:service`. */
export function tokenLine(merchant: string, service: string): string {
  return Buffer.from(`${merchant}:${service}`).toString('base64');
}

/** The suite's one wait, as the webhook suites import it. */
export { waitFor } from '../support/wait-for';

/**
 * POSTs a delivery as the service does: JSON, with each element of `lines` as its own `Webhook` header line
 * (supertest's types only allow arrays for cookies, but Node writes one line per element for any header).
 */
export function postDelivery(baseUrl: string, path: string, payload: unknown, lines: string[]): request.Test {
  const req = request(baseUrl)
    .post(path.startsWith('/') ? path : `/${path}`)
    .set('Content-Type', 'application/json')
    .set('UserId', 'sandbox-account')
    .set('Gateway', 'sandbox');
  const set = req.set.bind(req) as unknown as (field: string, value: string[]) => request.Test;
  return set('Webhook', lines).send(typeof payload === 'string' ? payload : JSON.stringify(payload));
}
