import { randomUUID } from 'node:crypto';
import { OpenInvoiceReconciliation1763700009000 } from '../../migrations/1763700009000-OpenInvoiceReconciliation';
import { StatusNotifyLease1763700006000 } from '../../migrations/1763700006000-StatusNotifyLease';
import { INestApplication, LoggerService } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoicePaymentsInit1763700000000 } from '../../migrations/1763700000000-InvoicePaymentsInit';
import { CheckoutSettlement1763700005500 } from '../../migrations/1763700005500-CheckoutSettlement';
import { InvoiceCustomer1763700011000 } from '../../migrations/1763700011000-InvoiceCustomer';
import { ShopperStatusToken1763700014000 } from '../../migrations/1763700014000-ShopperStatusToken';
import { ReconciliationWatchedFrom1763700015300 } from '../../migrations/1763700015300-ReconciliationWatchedFrom';
import { TrackingErrorKind1763700011100 } from '../../migrations/1763700011100-TrackingErrorKind';
import { TrackingOutbox1763700002000 } from '../../migrations/1763700002000-TrackingOutbox';
import { InvoicePaymentsEvents, type InvoicePaymentsAlert } from '../../src/core/events';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { GatewayClientOptions } from '../../src/gateway/gateway.options';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';
import { ALL_SCOPES, startSandbox } from '../../src/sandbox';
import type { SandboxServer } from '../../src/sandbox';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { TrackingService } from '../../src/shipping/tracking.service';
import { TrackingWorker } from '../../src/shipping/tracking.worker';
import type { ShippingOptions } from '../../src/options/shipping.options';
import type { TrackingFailedEvent, TrackingPostedEvent } from '../../src/domain/shipping.types';
import { RecordingProxy, RecordedRequest } from '../gateway/support/recording-proxy';
import { DatabaseKind, openTestDatabase, TestDatabase } from '../support/databases';
import { startRootApp } from '../support/root-app';
import { openCheckoutDatabase } from '../checkout/support';

/** A distinctive bearer token: any trace of it in a log line is a leak. */
export const TOKEN = 'tok_SHIPPING_LEAKCHECK_5e1f0a';
export const TRACKING_PATH = '/invoices/tracking';

/** The invoice table (with its history) and the outbox, created by their migrations. */
export function openShippingDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  return openTestDatabase(kind, {
    entities: [InvoiceRecord, InvoiceStatusHistory, TrackingOutbox],
    migrations: [
      InvoicePaymentsInit1763700000000,
      CheckoutSettlement1763700005500,
      InvoiceCustomer1763700011000,
      ShopperStatusToken1763700014000,
      TrackingErrorKind1763700011100,
      TrackingOutbox1763700002000,
      StatusNotifyLease1763700006000,
      OpenInvoiceReconciliation1763700009000,
      ReconciliationWatchedFrom1763700015300,
    ],
  });
}

/** Every log line, so tests can find the refusal lines and search for secrets. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown) {
    this.lines.push(`log ${String(message)}`);
  }
  error(message: unknown) {
    this.lines.push(`error ${String(message)}`);
  }
  warn(message: unknown) {
    this.lines.push(`warn ${String(message)}`);
  }
  debug(message: unknown) {
    this.lines.push(`debug ${String(message)}`);
  }
  verbose(message: unknown) {
    this.lines.push(`verbose ${String(message)}`);
  }
}

/** The sandbox, with a recording proxy in front of it: the witness of every tracking request sent. */
export interface ShippingHarness {
  sandbox: SandboxServer;
  proxy: RecordingProxy;
  logger: CapturingLogger;
  /** A client for the test's own calls (creating invoices). */
  client: GatewayClient;
  /** Tracking requests that reached the proxy, with their A9 body. */
  trackingRequests(): Array<{ invoiceId: string; code: string; carrier?: string; url?: string }>;
  close(): Promise<void>;
}

async function startShippingHarness(): Promise<ShippingHarness> {
  const sandbox = await startSandbox({ tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }] });
  const proxy = await RecordingProxy.start(sandbox.url);
  const logger = new CapturingLogger();
  return {
    sandbox,
    proxy,
    logger,
    client: new GatewayClient(clientOptions(proxy.url, logger)),
    trackingRequests: () =>
      proxy.requests
        .filter((r: RecordedRequest) => r.method === 'POST' && r.path === TRACKING_PATH)
        .map((r) => {
          const body = r.json as {
            payment: { invoice_id: string };
            tracking: { code: string; carrier?: string; url?: string };
          };
          return { invoiceId: body.payment.invoice_id, ...body.tracking };
        }),
    async close() {
      await proxy.close();
      await sandbox.close();
    },
  };
}

function clientOptions(baseUrl: string, logger: LoggerService, extra: Partial<GatewayClientOptions> = {}) {
  return { baseUrl, accessToken: TOKEN, mode: 'sandbox' as const, logger, ...extra };
}

/**
 * An order with an invoice made at the sandbox (PIX), paid there unless `pay: false`, and its `InvoiceRecord` row
 * with the service's ids and the status the sandbox reports.
 */
async function createOrder(
  db: TestDatabase,
  h: ShippingHarness,
  { pay = true }: { pay?: boolean } = {},
): Promise<{ orderId: string; record: InvoiceRecord }> {
  const orderId = `order-${randomUUID()}`;
  const referrer = `${orderId}-a1`;
  const invoice = await h.client.createInvoice({
    client: { name: 'Maria Silva', document: '52998224725', email: 'maria@example.com' },
    payment: {
      method: 'pix',
      physical: false,
      id: orderId,
      referrer,
      products: [{ id: 'p1', title: 'Mug', quantity: 2, discountCents: 0, unitAmountCents: 2550 }],
    },
  });
  if (pay) await h.sandbox.controls.pay(invoice.id);
  const statusCode = h.sandbox.controls.renderInvoice(invoice.id)!.status.code;
  const now = new Date();
  const record = Object.assign(new InvoiceRecord(), {
    id: randomUUID(),
    orderId,
    openOrderId: orderId,
    attempt: 1,
    referrer,
    creationState: 'created',
    method: 'pix',
    gatewayId: invoice.id,
    gatewayUuid: invoice.uuid,
    gatewayInvoiceId: invoice.invoiceId,
    statusCode,
    statusText: null,
    currency: 'BRL',
    amountCents: 5100,
    createdAt: now,
    updatedAt: now,
  });
  await db.dataSource.getRepository(InvoiceRecord).insert(record);
  return { orderId, record };
}

export interface ShippingApp {
  app: INestApplication;
  tracking: TrackingService;
  worker: TrackingWorker;
  emitter: EventEmitter2;
  posted: TrackingPostedEvent[];
  failed: TrackingFailedEvent[];
  /** Every `InvoicePaymentsEvents.Alert` raised. */
  alerts: InvoicePaymentsAlert[];
  close(): Promise<void>;
}

/** Fast retries for tests: they come back within ~100 ms. */
const TEST_SHIPPING: ShippingOptions = {
  pollIntervalMs: 20,
  backoff: { initialDelayMs: 20, maxDelayMs: 100 },
};

/**
 * One instance of a host app: the whole module ({@link startRootApp}) on the test database, its `GatewayClient`
 * through the harness's proxy, its log lines in the harness's logger. No worker starts on its own (`workers: false`):
 * the test starts the tracking worker. Several may run on one database, as several processes would.
 */
async function startShippingApp(
  db: TestDatabase,
  h: ShippingHarness,
  options: ShippingOptions = {},
  client: Partial<GatewayClientOptions> = {},
): Promise<ShippingApp> {
  const root = {
    gateway: clientOptions(h.proxy.url, h.logger, client),
    shipping: { ...TEST_SHIPPING, ...options },
  };
  const { app, close } = await startRootApp(db, h.sandbox, { ...root, workers: false }, [], {
    logger: h.logger,
  });
  const emitter = app.get(EventEmitter2);
  const posted: TrackingPostedEvent[] = [];
  const failed: TrackingFailedEvent[] = [];
  emitter.on(InvoicePaymentsEvents.TrackingPosted, (e: TrackingPostedEvent) => posted.push(e));
  emitter.on(InvoicePaymentsEvents.TrackingFailed, (e: TrackingFailedEvent) => failed.push(e));
  const alerts: InvoicePaymentsAlert[] = [];
  emitter.on(InvoicePaymentsEvents.Alert, (e: InvoicePaymentsAlert) => alerts.push(e));
  return {
    app,
    tracking: app.get(TrackingService),
    worker: app.get(TrackingWorker),
    emitter,
    posted,
    failed,
    alerts,
    close,
  };
}

/**
 * A suite's scene: its database, the sandbox behind its recording proxy, and the host app instances the suite starts
 * on them. Opened before the suite's tests; its apps, sandbox and database are closed after them.
 */
export interface ShippingScene {
  db: TestDatabase;
  h: ShippingHarness;
  /** Starts a host app instance ({@link startShippingApp}); closing it takes it off the scene. */
  start(options?: ShippingOptions, client?: Partial<GatewayClientOptions>): Promise<ShippingApp>;
  /** Closes the instances still running. */
  stopApps(): Promise<void>;
  /** {@link createOrder} on the scene. */
  order(options?: { pay?: boolean }): Promise<{ orderId: string; record: InvoiceRecord }>;
}

export function openShippingScene(kind: DatabaseKind): ShippingScene {
  const apps: ShippingApp[] = [];
  const scene = {
    async start(options: ShippingOptions = {}, client: Partial<GatewayClientOptions> = {}) {
      const app = await startShippingApp(scene.db, scene.h, options, client);
      const started: ShippingApp = {
        ...app,
        close: async () => {
          apps.splice(apps.indexOf(started), 1);
          await app.close();
        },
      };
      apps.push(started);
      return started;
    },
    async stopApps() {
      while (apps.length) await apps[apps.length - 1].close();
    },
    order: (options?: { pay?: boolean }) => createOrder(scene.db, scene.h, options),
  } as ShippingScene;
  beforeAll(async () => {
    scene.db = await openCheckoutDatabase(kind);
    scene.h = await startShippingHarness();
  });
  afterAll(async () => {
    await scene.stopApps();
    await scene.h?.close();
    await scene.db?.destroy();
  });
  return scene;
}

/** An outbox row as the worker finds it, due a second ago; `overrides` change any field. */
export function outboxRow(overrides: Partial<TrackingOutbox> = {}): TrackingOutbox {
  const now = new Date(Date.now() - 1000);
  return Object.assign(new TrackingOutbox(), {
    id: randomUUID(),
    orderId: `order-${randomUUID()}`,
    code: 'BR123456789BR',
    carrier: null,
    url: null,
    invoiceRecordId: randomUUID(),
    gatewayInvoiceId: 'inv_1',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lockedUntil: null,
    lockedBy: null,
    lastError: null,
    lastErrorKind: null,
    recordedAt: now,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  });
}
