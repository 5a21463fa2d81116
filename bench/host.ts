/**
 * The bench's host process (forked by `bench/webhook.ts`), so the servers measured do not share a CPU with the load
 * generator: the bare baseline (node:http + one pg `UPDATE` per request) and a minimal Nest host registering the
 * module as the README says, with an order port that updates the host's own orders table through the app's
 * DataSource. Answers the parent's commands over IPC; counts its SQL statements (bench/sql-count.ts).
 */
import { sqlCount, uncounted } from './sql-count';
import http, { type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Body, Controller, HttpCode, Injectable, Module, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import {
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  type OrderPaymentPort,
  type PaymentStatusChange,
} from '../src/index';
import { checkout, makeOrder } from '../test/checkout/support';
import { checkoutSteps } from './checkout-steps';
import { percentiles } from './stats';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The host's order port as the README writes it: one UPDATE of the host's orders table. */
@Injectable()
class HostOrdersPort implements OrderPaymentPort {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}
  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    await this.dataSource.query('UPDATE host_orders SET payment_status = $1 WHERE id = $2', [
      change.current.orderPaymentStatus,
      change.orderId,
    ]);
  }
}

interface InitArgs {
  dbUrl: string;
  sandboxUrl: string;
  token: string;
}

let app: INestApplication;
let probe: Client;
let pool: Pool;
let baseline: http.Server;
let floor: INestApplication;
/** Invoice lookups the module made at the service (`GatewayClient.findInvoiceById`): its confirmations. */
let lookups = 0;
const initialStatus = new Map<string, number | null>();

async function init({ dbUrl, sandboxUrl, token }: InitArgs) {
  probe = uncounted(new Client({ connectionString: dbUrl }));
  await probe.connect();
  await probe.query(
    'CREATE TABLE host_orders (id varchar(128) PRIMARY KEY, payment_status varchar(32) NOT NULL, updated_at timestamptz)',
  );

  // The bare baseline: read the body, one UPDATE, answer.
  pool = new Pool({ connectionString: dbUrl, max: 10 });
  baseline = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        invoice?: { referrer?: string; status?: { code?: number } };
      };
      pool
        .query('UPDATE host_orders SET payment_status = $1, updated_at = now() WHERE id = $2', [
          String(body.invoice?.status?.code ?? ''),
          body.invoice?.referrer ?? '',
        ])
        .then(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"received":true}');
        })
        .catch((err: Error) => {
          res.writeHead(500);
          res.end(err.message);
        });
    });
  });
  await new Promise<void>((r) => baseline.listen(0, '127.0.0.1', r));

  floor = await startFloor(dbUrl);
  await probe.query(
    `CREATE TABLE floor_checkouts (id bigserial PRIMARY KEY, order_id varchar(128) NOT NULL UNIQUE,
       state varchar(16) NOT NULL, gateway_id varchar(64), answer text)`,
  );
  await probe.query(
    'CREATE TABLE floor_history (id bigserial PRIMARY KEY, checkout_id bigint NOT NULL, state varchar(16) NOT NULL)',
  );

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url: dbUrl,
        extra: { max: 10 },
        entities: [...INVOICE_PAYMENTS_ENTITIES],
        migrations: [...INVOICE_PAYMENTS_MIGRATIONS],
        migrationsRun: true,
      }),
      EventEmitterModule.forRoot(),
      InvoicePaymentsModule.forRoot({
        gateway: { baseUrl: sandboxUrl, accessToken: token, mode: 'sandbox' },
        // Deliveries are held by the sandbox and replayed by the bench; the URL only has to be accepted.
        checkout: { publicWebhookUrl: 'http://127.0.0.1:9/webhooks/invoice-payments' },
        orderPort: HostOrdersPort,
      }),
    ],
  })
  class HostModule {}
  if (process.env.BENCH_ACK_ONLY) {
    const { WebhookInboxProcessor } = await import('../src/webhooks/webhook-inbox.processor');
    WebhookInboxProcessor.prototype.kick = () => undefined;
    WebhookInboxProcessor.prototype.start = () => undefined;
  }
  {
    const { GatewayClient } = await import('../src/gateway/gateway.client');
    const original = GatewayClient.prototype.findInvoiceById;
    GatewayClient.prototype.findInvoiceById = function (...args: Parameters<typeof original>) {
      lookups++;
      return original.apply(this, args);
    };
  }
  app = await NestFactory.create(HostModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const url = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return {
    baselineUrl: url(baseline),
    floorUrl: `${url(floor.getHttpServer())}/floor`,
    moduleUrl: `${url(app.getHttpServer())}/webhooks/invoice-payments`,
  };
}

/**
 * The framework floor: NestJS (Express) + TypeORM, one controller doing one INSERT per request, on its own pool of
 * the same size. What the module's route costs above it is the module's own.
 */
async function startFloor(dbUrl: string): Promise<INestApplication> {
  await probe.query('CREATE TABLE floor_events (id bigserial PRIMARY KEY, body jsonb NOT NULL)');
  @Controller('floor')
  class FloorController {
    constructor(@InjectDataSource() private readonly dataSource: DataSource) {}
    @Post()
    @HttpCode(200)
    async receive(@Body() body: unknown): Promise<{ received: true }> {
      await this.dataSource.query('INSERT INTO floor_events (body) VALUES ($1)', [JSON.stringify(body)]);
      return { received: true };
    }
  }
  @Module({
    imports: [TypeOrmModule.forRoot({ type: 'postgres', url: dbUrl, extra: { max: 10 } })],
    controllers: [FloorController],
  })
  class FloorModule {}
  const floorApp = await NestFactory.create(FloorModule, { logger: ['error'] });
  await floorApp.listen(0, '127.0.0.1');
  return floorApp;
}

/** Checks out `n` orders (PIX) and adds them to the host's orders table. */
async function checkoutOrders({ n, concurrency }: { n: number; concurrency: number }) {
  const provider = app.get(InvoicePaymentProvider);
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const order = makeOrder();
        await pool.query('INSERT INTO host_orders (id, payment_status) VALUES ($1, $2)', [
          order.id,
          'not_paid',
        ]);
        const session = await provider.initiatePayment(checkout(order, 'pix'));
        ids.push(session.data.gatewayId as string);
        initialStatus.set(session.id, session.data.statusCode ?? null);
      }
    }),
  );
  return { gatewayIds: ids };
}

/** Puts every record back to its status at checkout, so the next round's deliveries make real transitions. */
async function resetStatuses() {
  const code = [...initialStatus.values()][0] ?? 1;
  await probe.query('UPDATE invoice_payments_invoice SET status_code = $1, open_order_id = order_id', [code]);
  return { code };
}

async function stats() {
  const pending = await probe.query<{ n: string }>(
    "SELECT COUNT(*) AS n FROM invoice_payments_webhook_inbox WHERE state = 'pending'",
  );
  const outbox = await probe.query<{ n: string }>(
    'SELECT COUNT(*) AS n FROM invoice_payments_status_history WHERE applied = true AND notified_at IS NULL',
  );
  const inbox = await probe.query<{ n: string }>('SELECT COUNT(*) AS n FROM invoice_payments_webhook_inbox');
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  return {
    ...sqlCount,
    cpuMicros: cpu.user + cpu.system,
    lookups,
    pending: process.env.BENCH_ACK_ONLY ? 0 : Number(pending.rows[0].n),
    undelivered: Number(outbox.rows[0].n),
    inbox: Number(inbox.rows[0].n),
    rss: mem.rss,
    heapUsed: mem.heapUsed,
  };
}

/** The body and headers of the module's next POST, captured as it leaves (`http.request` wrapped once). */
function captureNextPost(): Promise<{ path: string; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve) => {
    const original = http.request;
    (http as { request: unknown }).request = (...args: unknown[]) => {
      const request = (original as (...a: unknown[]) => ClientRequest)(...args);
      if (request.method !== 'POST') return request;
      http.request = original;
      const chunks: Buffer[] = [];
      const write = request.write.bind(request) as (...a: unknown[]) => boolean;
      const end = request.end.bind(request) as (...a: unknown[]) => ClientRequest;
      (request as unknown as { write: (...a: unknown[]) => boolean }).write = (...a: unknown[]) => {
        if (a[0] !== undefined && typeof a[0] !== 'function') chunks.push(Buffer.from(a[0] as string));
        return write(...a);
      };
      (request as unknown as { end: (...a: unknown[]) => ClientRequest }).end = (...a: unknown[]) => {
        if (a[0] !== undefined && typeof a[0] !== 'function') chunks.push(Buffer.from(a[0] as string));
        resolve({
          path: request.path,
          headers: request.getHeaders(),
          body: Buffer.concat(chunks).toString(),
        });
        return end(...a);
      };
      return request;
    };
  });
}

const rawAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs `body` on the bench's keep-alive agent and answers the response's text (a non-2xx answer rejects). */
function post(base: string, path: string, headers: Record<string, unknown>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, base),
      {
        method: 'POST',
        agent: rawAgent,
        headers: { ...(headers as Record<string, string>), 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode && res.statusCode < 300
            ? resolve(Buffer.concat(chunks).toString())
            : reject(new Error(`raw POST answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The raw POST: the same body to the same sandbox, its answer read; milliseconds. */
async function rawPost(base: string, path: string, headers: Record<string, unknown>, body: string) {
  const started = performance.now();
  await post(base, path, headers, body);
  return performance.now() - started;
}

/** The raw POST through Node's own `fetch` (undici), as a store without the module might send it. */
async function fetchPost(base: string, path: string, headers: Record<string, unknown>, body: string) {
  const started = performance.now();
  const kept = Object.entries(headers as Record<string, string>).filter(
    ([name]) => !['content-length', 'host', 'connection'].includes(name.toLowerCase()),
  );
  const res = await fetch(new URL(path, base), { method: 'POST', headers: Object.fromEntries(kept), body });
  await res.text();
  if (!res.ok) throw new Error(`fetch POST answered ${res.status}`);
  return performance.now() - started;
}

/**
 * The checkout's physical floor: what any exactly-once checkout costs with the two transactions and no
 * module code at all. A claim row committed before the request leaves, the raw POST, then the answer settled into
 * the row with its history in one statement, through plain `pg` on the bench's pool.
 */
async function floorCheckout(
  base: string,
  path: string,
  headers: Record<string, unknown>,
  body: string,
  key: string,
) {
  const started = performance.now();
  const claimed = await pool.query<{ id: string }>(
    'INSERT INTO floor_checkouts (order_id, state) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id',
    [key, 'pending'],
  );
  if (claimed.rows.length !== 1) throw new Error(`floor checkout ${key}: not claimed`);
  const answer = await post(base, path, headers, body);
  const invoice = JSON.parse(answer) as { id?: unknown; invoice?: { id?: unknown } };
  const settled = await pool.query(
    `WITH settled AS (UPDATE floor_checkouts SET state = 'created', gateway_id = $2, answer = $3
       WHERE id = $1 RETURNING id)
     INSERT INTO floor_history (checkout_id, state) SELECT id, 'created' FROM settled`,
    [claimed.rows[0].id, String(invoice.invoice?.id ?? invoice.id ?? ''), answer],
  );
  if (settled.rowCount !== 1) throw new Error(`floor checkout ${key}: not settled`);
  return performance.now() - started;
}

/**
 * `initiatePayment` against a raw POST of the same body to the same sandbox (and that POST through `fetch`, and the
 * checkout's floor): sequential calls interleaved in rounds, then 32 concurrent of each.
 */
async function checkoutBench({ sandboxUrl, n, rounds }: { sandboxUrl: string; n: number; rounds: number }) {
  const provider = app.get(InvoicePaymentProvider);
  const captured = captureNextPost();
  await provider.initiatePayment(checkout(makeOrder(), 'pix'));
  const sample = await captured;
  const template = JSON.parse(sample.body) as Record<string, unknown>;
  const sampleId = JSON.stringify(template).match(/order_[0-9a-f-]{36}/)?.[0] ?? '';
  const rawBody = (i: number) => sample.body.split(sampleId).join(`raw_${process.pid}_${i}_${Date.now()}`);

  const moduleMs: number[] = [];
  const rawMs: number[] = [];
  const fetchMs: number[] = [];
  const floorMs: number[] = [];
  let moduleStatements = 0;
  let moduleCpu = 0;
  let rawCpu = 0;
  let seq = 0;
  /** The next floor checkout: its own order key and body. */
  const nextFloor = () => {
    const key = `floor_${process.pid}_${seq}`;
    return floorCheckout(sandboxUrl, sample.path, sample.headers, rawBody(seq++), key);
  };
  const cpuOf = async (one: () => Promise<unknown>) => {
    const c0 = process.cpuUsage();
    await one();
    const c = process.cpuUsage(c0);
    return c.user + c.system;
  };
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < n / rounds; i++) {
      const before = sqlCount.statements;
      const started = performance.now();
      moduleCpu += await cpuOf(() => provider.initiatePayment(checkout(makeOrder(), 'pix')));
      moduleMs.push(performance.now() - started);
      moduleStatements += sqlCount.statements - before;
    }
    for (let i = 0; i < n / rounds; i++) {
      const c0 = process.cpuUsage();
      rawMs.push(await rawPost(sandboxUrl, sample.path, sample.headers, rawBody(seq++)));
      const c = process.cpuUsage(c0);
      rawCpu += c.user + c.system;
    }
    for (let i = 0; i < n / rounds; i++) {
      fetchMs.push(await fetchPost(sandboxUrl, sample.path, sample.headers, rawBody(seq++)));
    }
    for (let i = 0; i < n / rounds; i++) floorMs.push(await nextFloor());
  }
  const concurrent = 32;
  const total = concurrent * 10;
  const timeIt = async (one: () => Promise<unknown>) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        while (next < total) {
          next++;
          await one();
        }
      }),
    );
    return total / ((performance.now() - started) / 1000);
  };
  const moduleRate = await timeIt(() => provider.initiatePayment(checkout(makeOrder(), 'pix')));
  const rawRate = await timeIt(() => rawPost(sandboxUrl, sample.path, sample.headers, rawBody(seq++)));
  const floorRate = await timeIt(nextFloor);
  return {
    module: percentiles(moduleMs),
    raw: percentiles(rawMs),
    fetch: percentiles(fetchMs),
    floor: percentiles(floorMs),
    statementsPerCall: moduleStatements / moduleMs.length,
    /** Host CPU per sequential call, ms (the checkout's own work, until it resolves). */
    moduleCpuMs: moduleCpu / 1000 / moduleMs.length,
    rawCpuMs: rawCpu / 1000 / rawMs.length,
    moduleRate,
    rawRate,
    floorRate,
    bodyBytes: Buffer.byteLength(sample.body),
  };
}

async function close() {
  await app?.close();
  await pool?.end();
  await new Promise((r) => baseline?.close(r));
  await floor?.close();
  await probe?.end();
  rawAgent.destroy();
  return {};
}

const commands: Record<string, (args: never) => Promise<unknown>> = {
  init,
  checkoutOrders,
  resetStatuses,
  stats,
  checkoutBench,
  checkoutSteps: ({ n }: { n: number }) => checkoutSteps(app, n),
  gc: async () => {
    gc();
    return {};
  },
  close,
};

process.on('message', (msg: { id: number; cmd: string; args: unknown }) => {
  const command = commands[msg.cmd];
  Promise.resolve()
    .then(() => command(msg.args as never))
    .then(
      (result) => process.send?.({ id: msg.id, result }),
      (err: unknown) => process.send?.({ id: msg.id, error: err instanceof Error ? err.stack : String(err) }),
    )
    .finally(() => {
      // Exit on our own (not killed), so a `--cpu-prof` profile gets written.
      if (msg.cmd === 'close') setImmediate(() => process.exit(0));
    });
});
