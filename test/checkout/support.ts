import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCpf } from '@brazilian-utils/brazilian-utils';
import { INestApplication } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  CheckoutOptions,
  CheckoutOrder,
  GatewayClient,
  InitiatePaymentInput,
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  InvoicePaymentProvider,
  InvoicePaymentsAlert,
  InvoicePaymentsEvents,
  InvoicePaymentsModule,
  InvoiceRecord,
  ORDER_PAYMENT_PORT,
  PaymentBeingConfirmedError,
  PaymentMethod,
} from '../../src/index';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { RecordingOrderPort, sandboxGateway, startHostApp, waitFor } from '../support/app';
import { DatabaseKind, openTestDatabase, TestDatabase } from '../support/databases';

export { RecordingOrderPort, SANDBOX_TOKEN, sandboxGateway, waitFor } from '../support/app';

/** A database with every table of the module, made by its migrations. */
export function openCheckoutDatabase(kind: DatabaseKind, poolSize?: number): Promise<TestDatabase> {
  return openTestDatabase(kind, {
    entities: INVOICE_PAYMENTS_ENTITIES,
    migrations: INVOICE_PAYMENTS_MIGRATIONS,
    ...(poolSize ? { poolSize } : {}),
  });
}

export interface CheckoutApp {
  app: INestApplication;
  provider: InvoicePaymentProvider;
  gateway: GatewayClient;
  port: RecordingOrderPort;
  alerts: InvoicePaymentsAlert[];
  /** Every record of an order, oldest attempt first. */
  records(orderId: string): Promise<InvoiceRecord[]>;
  /** How many invoices the sandbox holds for an order (`payment.id`), asked over HTTP. */
  invoicesAtService(orderId: string): Promise<number>;
  /** Waits until every applied status change reached the port. */
  notified(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A host app as a store builds it: TypeORM on the test database, the event bus and `InvoicePaymentsModule.forRoot`,
 * talking to the sandbox over HTTP. `overrides` replace the module's providers (e.g. `[CLOCK, new ManualClock()]`).
 */
export async function startCheckoutApp(
  db: TestDatabase,
  sandbox: SandboxServer,
  checkout: CheckoutOptions = {},
  gateway: { timeouts?: { createMs?: number; readMs?: number } } = {},
  overrides: Array<[unknown, unknown]> = [],
): Promise<CheckoutApp> {
  const root = InvoicePaymentsModule.forRoot({
    gateway: { ...sandboxGateway(sandbox.url), ...gateway },
    checkout: { unknownOutcomeRecheckMs: 300, ...checkout },
    notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20, retryMaxDelayMs: 200 },
    orderPort: RecordingOrderPort,
  });
  const { app, close } = await startHostApp(db, [root], { overrides });
  const alerts: InvoicePaymentsAlert[] = [];
  app.get(EventEmitter2).on(InvoicePaymentsEvents.Alert, (a: InvoicePaymentsAlert) => alerts.push(a));
  const client = app.get(GatewayClient);
  return {
    app,
    provider: app.get(InvoicePaymentProvider),
    gateway: client,
    port: app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT),
    alerts,
    records: (orderId) =>
      db.dataSource.getRepository(InvoiceRecord).find({ where: { orderId }, order: { attempt: 'ASC' } }),
    invoicesAtService: async (orderId) => (await client.listInvoices({ paymentId: orderId })).items.length,
    notified: () => app.get(StatusChangeDispatcher).drain(),
    close,
  };
}

/** A suite's database, sandbox and checkout app ({@link startCheckoutApp}), closed by {@link closeCheckoutScene}. */
export interface CheckoutScene {
  db: TestDatabase;
  sandbox: SandboxServer;
  shop: CheckoutApp;
}

export async function openCheckoutScene(
  kind: DatabaseKind,
  checkout: CheckoutOptions = {},
  gateway: Parameters<typeof startCheckoutApp>[3] = {},
  sandboxOptions: Parameters<typeof startSandbox>[0] = {},
): Promise<CheckoutScene> {
  const db = await openCheckoutDatabase(kind);
  const sandbox = await startSandbox(sandboxOptions);
  return { db, sandbox, shop: await startCheckoutApp(db, sandbox, checkout, gateway) };
}

export async function closeCheckoutScene(scene: Partial<CheckoutScene> = {}): Promise<void> {
  await scene.shop?.close();
  await scene.sandbox?.close();
  await scene.db?.destroy();
}

/**
 * The referrer of an order's attempt: `<namespace>:<order reference>-<attempt>`, the namespace being the
 * installation's own (made at random once, kept in the settings).
 */
export function referrerOf(reference: string, attempt: number): unknown {
  const escaped = reference.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expect.stringMatching(new RegExp(`^[a-z0-9]{1,16}:${escaped}-${attempt}$`));
}

/** A valid Brazilian order: 2 × 50.00 (10.00 off the line) + 19.90 − 5.00 + 15.00 shipping = 119.90. */
export function makeOrder(overrides: Partial<CheckoutOrder> = {}): CheckoutOrder {
  const id = overrides.id ?? `order_${randomUUID()}`;
  return {
    id,
    reference: id,
    currency_code: 'brl',
    total: 11990,
    items: [
      {
        id: 'item_1',
        title: 'Camiseta',
        thumbnail: 'https://cdn.example/camiseta.jpg',
        quantity: 2,
        unit_price: 5000,
        discount_total: 1000,
        requires_shipping: true,
      },
      { id: 'item_2', title: 'E-book', quantity: 1, unit_price: 1990, requires_shipping: false },
    ],
    shipping_total: 1500,
    discount_total: 1500,
    customer: {
      first_name: 'Maria',
      last_name: 'Silva',
      email: 'maria@example.com',
      phone: '11987654321',
      document: generateCpf(),
    },
    shipping_address: {
      address_1: 'Rua das Flores, 123',
      district: 'Centro',
      city: 'São Paulo',
      province: 'SP',
      postal_code: '01310-100',
      country_code: 'BR',
    },
    customer_ip: '203.0.113.7',
    ...overrides,
  };
}

/** The `initiatePayment` input for an order and a method (card data for `card`). */
export function checkout(
  order: CheckoutOrder,
  method: PaymentMethod,
  card?: { token: string },
  installments?: number,
): InitiatePaymentInput {
  return {
    amount: order.total,
    currency_code: 'BRL',
    data: {
      order,
      method,
      ...(card ? { card: { token: card.token, expiry: '12/30', holder_name: 'MARIA SILVA' } } : {}),
      ...(installments ? { installments } : {}),
    },
  };
}

/** A real HTTP hop in front of the sandbox. */
export interface RewritingProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A proxy that passes every request to `target` and lets `rewrite` change the JSON answer of a successful request
 * of `method` (default `POST`: a created invoice), as a service with other rules would answer.
 */
export async function startRewritingProxy<
  T = { invoice: Record<string, unknown> & { id: string; amount: { gross: number } } },
>(target: string, rewrite: (json: T) => void, method = 'POST'): Promise<RewritingProxy> {
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
      ) as Record<string, string>;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
      let text = await answer.text();
      if (req.method === method && answer.ok) {
        const json = JSON.parse(text) as T;
        rewrite(json);
        text = JSON.stringify(json);
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/**
 * The client timeout and margin of the scenes where a create request lands after its attempt's window. The timeout
 * is long enough that the sandbox (in the same busy process) has read a request before its client gives up on it.
 */
export const LATE_CREATE = { createTimeoutMs: 1000, marginMs: 1000 };
/** A request lands at the service this long after it left, or never. */
export const LATE_WINDOW_MS = LATE_CREATE.createTimeoutMs + LATE_CREATE.marginMs;

/** `initiatePayment` until created, waiting as each "being confirmed" answer says; the answers waited on too. */
export async function payUntilCreated(provider: InvoicePaymentProvider, order: CheckoutOrder) {
  const told: PaymentBeingConfirmedError[] = [];
  const pay = async () => {
    try {
      return await provider.initiatePayment(checkout(order, 'pix'));
    } catch (err) {
      if (!(err instanceof PaymentBeingConfirmedError)) throw err;
      told.push(err);
      return null;
    }
  };
  // A shopper retrying every 150 ms (sooner than the "retry in N s" asks) until the invoice is there.
  const out = await waitFor(pay, 20_000, `order ${order.id} created`, 150);
  return { out, told };
}

/**
 * An order whose attempt 1 landed after its window: attempt 2 (`out`) holds it, attempt 1's invoice (`late`) is at
 * the service. For a store made with {@link LATE_CREATE}.
 */
export async function lateFirstInvoice(
  scene: { sandbox: SandboxServer; provider: InvoicePaymentProvider; gateway: GatewayClient },
  order: CheckoutOrder,
) {
  const { sandbox, provider, gateway } = scene;
  sandbox.controls.addFault({ method: 'POST', path: '/invoices', times: 1, latencyMs: LATE_WINDOW_MS + 700 });
  const { out } = await payUntilCreated(provider, order);
  // Attempt 2 on a quiet machine; a later one when the client gave up before the sandbox read attempt 2's request.
  expect(out.data.attempt).toBeGreaterThanOrEqual(2);
  expect(out.data.statusCode).toBe(1);
  const atService = async () => (await gateway.listInvoices({ paymentId: order.id })).items;
  await waitFor(
    async () => (await atService()).length === 2,
    15_000,
    'the late first invoice at the service',
  );
  const late = (await atService()).find((i) => i.referrer?.endsWith(`:${order.id}-1`))!;
  return { out, late };
}
