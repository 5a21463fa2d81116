/**
 * `npm run bench -- scale`: a big store's years against a small store's, side by side, both running at once. Each
 * store is a database seeded by `bench/scale-seed.ts` (set-based SQL) and an app as a store runs it (production
 * defaults, the admin API, the module's own workers) against the sandbox. Printed, each the median of
 * `BENCH_SCALE_CALLS` (5) calls after one warm-up: the admin list (first page, page 500 by cursor and by offset,
 * a status, a month), the search (a name, a full name, an e-mail, an order number), the Operations tab's inbox
 * and outbox lists (a finished state), an invoice and its history,
 * a PIX checkout and a payment's webhook until the status is applied; then each store's database time over
 * `BENCH_SCALE_IDLE_MS` (60 s) of idling, per minute (PostgreSQL: the time of every statement its app sent);
 * then the first start with a backlog of `BENCH_SCALE_BACKLOG` (100 000) old inbox rows: how long the start took,
 * a checkout during the purge, and how long the purge ran.
 *
 * Knobs: `BENCH_SCALE_DIALECT` (`postgres`, or `sqlite`: files under the OS temp folder), `BENCH_SCALE_N` (large
 * store: 1 000 000 on PostgreSQL, 100 000 on SQLite), `BENCH_SCALE_SMALL` (1 000), `DATABASE_URL` (PostgreSQL
 * server, default postgres://postgres@127.0.0.1:5432/postgres). A store is seeded once and reused by later runs
 * (`bench_scale_<n>`; `BENCH_SCALE_RESEED=1` seeds again).
 */
import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Client } from 'pg';
import type { DataSource, DataSourceOptions } from 'typeorm';
import {
  INVOICE_PAYMENTS_ENTITIES,
  InvoicePaymentProvider,
  InvoicePaymentsEvents,
  InvoicePaymentsModule,
  type PaymentStatusChange,
} from '../src/index';
import { startSandbox, type SandboxServer } from '../src/sandbox';
import { encodeCursor } from '../src/settings/admin-invoices.service';
import { checkout, makeOrder } from '../test/checkout/support';
import {
  insertInboxBacklog,
  openStore,
  preparePostgresStore,
  seededInvoice,
  seedEnd,
  seedStore,
  type SeedDialect,
} from './scale-seed';

const TOKEN = 'bench-scale-token';
const ADMIN_KEY = 'bench-scale-admin-key-0123456789';
const A = '/admin/invoice-payments';
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Statement time per database, as the `pg` clients see it (send to answer). */
const dbTime = new Map<string, number>();
const originalQuery = Client.prototype.query as (...args: unknown[]) => unknown;
(Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: Client,
  ...args: unknown[]
) {
  const started = performance.now();
  const result = originalQuery.apply(this, args);
  if (result instanceof Promise) {
    const add = () =>
      dbTime.set(this.database ?? '', (dbTime.get(this.database ?? '') ?? 0) + performance.now() - started);
    result.then(add, add);
  }
  return result;
};

interface Store {
  label: string;
  n: number;
  location: string;
  seeded: number | null;
  app: INestApplication;
  url: string;
  dataSource: DataSource;
  close(): Promise<void>;
}

export async function runScaleBench(): Promise<void> {
  const dialect = (process.env.BENCH_SCALE_DIALECT ?? 'postgres') as SeedDialect;
  const large = env('BENCH_SCALE_N', dialect === 'postgres' ? 1_000_000 : 100_000);
  const small = env('BENCH_SCALE_SMALL', 1_000);
  const calls = env('BENCH_SCALE_CALLS', 5);
  console.log(`\n== scale: ${dialect}, ${small} against ${large} invoices ==`);
  const sandbox = await startSandbox({
    port: 0,
    tokens: [{ token: TOKEN, scopes: ['invoice.read', 'invoice.write', 'invoice.update'] }],
  });
  const stores: Store[] = [];
  try {
    for (const n of [small, large]) stores.push(await startStore(dialect, n, sandbox));
    for (const s of stores) {
      const how = s.seeded === null ? 'reused' : `seeded in ${s.seeded.toFixed(0)} s`;
      const [{ invoices }] = (await s.dataSource.query(
        'SELECT COUNT(*) AS invoices FROM invoice_payments_invoice',
      )) as Array<{ invoices: string }>;
      console.log(`${s.label}: ${s.location} (${how}; the app's database holds ${invoices})`);
    }
    const rows: Array<[string, string[]]> = [];
    for (const [name, op] of operations(calls, sandbox)) {
      const cells: string[] = [];
      for (const s of stores) cells.push(await op(s));
      rows.push([name, cells]);
      console.log(`${name.padEnd(46)} ${cells.map((c) => c.padStart(14)).join(' ')}`);
    }
    if (dialect === 'postgres') {
      const idleMs = env('BENCH_SCALE_IDLE_MS', 60_000);
      const before = stores.map((s) => dbTime.get(databaseOf(s)) ?? 0);
      await new Promise((r) => setTimeout(r, idleMs));
      const cells = stores.map((s, i) => {
        const spent = (dbTime.get(databaseOf(s)) ?? 0) - before[i];
        return `${((spent * 60_000) / idleMs).toFixed(0)} ms`;
      });
      console.log(
        `${'database time per minute, idle'.padEnd(46)} ${cells.map((c) => c.padStart(14)).join(' ')}`,
      );
    }
  } finally {
    for (const s of stores) await s.close();
  }
  const backlog = env('BENCH_SCALE_BACKLOG', dialect === 'postgres' ? 100_000 : 0);
  if (backlog > 0) await firstStartWithBacklog(dialect, large, backlog, sandbox);
  await sandbox.close();
}

type Operation = (store: Store) => Promise<string>;

/** The PostgreSQL database a store's app uses, as its `pg` clients name it. */
function databaseOf(s: Store): string {
  return new URL(s.location).pathname.slice(1);
}

/** Each operation of the issue's table: the median of `calls` calls after a warm-up. */
function operations(calls: number, sandbox: SandboxServer): Array<[string, Operation]> {
  const timed =
    (path: (s: Store) => Promise<string> | string): Operation =>
    async (s) => {
      const target = await path(s);
      const samples: number[] = [];
      let found: number | string = 0;
      for (let i = 0; i <= calls; i++) {
        const started = performance.now();
        const res = await fetch(`${s.url}${A}${target}`, {
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        });
        const body = (await res.json()) as { items?: unknown[]; total?: number; totalCapped?: boolean };
        if (!res.ok) throw new Error(`${target}: ${res.status} ${JSON.stringify(body)}`);
        if (i > 0) samples.push(performance.now() - started);
        found = Array.isArray(body) ? body.length : (body.items?.length ?? 1);
        if (body.total !== undefined) found = body.total;
        if (body.totalCapped) found = '10k+';
      }
      return `${median(samples)} (${found})`;
    };
  const mid = (s: Store) => seededInvoice(Math.floor(s.n / 2));
  const month = (s: Store) => {
    const end = seedEnd().getTime();
    const from = new Date(end - 540 * 86_400_000);
    const before = new Date(from.getTime() + 30 * 86_400_000);
    void s;
    return `/invoices?createdFrom=${from.toISOString()}&createdBefore=${before.toISOString()}`;
  };
  return [
    ['admin list, first page', timed(() => '/invoices?limit=20')],
    [
      'admin list, page 500 (cursor)',
      timed(async (s) => `/invoices?limit=20&page=500&cursor=${await cursorAt(s, 499 * 20)}`),
    ],
    ['admin list, page 500 (offset)', timed(() => '/invoices?limit=20&page=500')],
    ['admin list, status filter (denied)', timed(() => '/invoices?status=12')],
    ['admin list, one month', timed(month)],
    ['admin search, last name', timed((s) => `/invoices?q=${encodeURIComponent(mid(s).name.split(' ')[1])}`)],
    ['admin search, full name', timed((s) => `/invoices?q=${encodeURIComponent(mid(s).name)}`)],
    ['admin search, e-mail', timed((s) => `/invoices?q=${encodeURIComponent(mid(s).email)}`)],
    ['admin search, order number', timed((s) => `/invoices?q=${mid(s).displayId}`)],
    ['operations: inbox, processed', timed(() => '/webhooks/inbox?state=processed')],
    ['operations: tracking outbox, sent', timed(() => '/tracking/outbox?status=sent')],
    ['invoice detail', timed((s) => `/invoices/${mid(s).id}`)],
    ['invoice history', timed((s) => `/invoices/${mid(s).id}/history`)],
    ['checkout (PIX)', (s) => checkoutTimes(s, calls)],
    ['webhook pay → captured', (s) => paymentTimes(s, calls, sandbox)],
  ];
}

function median(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const m = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  return `${m.toFixed(1)} ms`;
}

/** The cursor that continues the list after its `offset`-th row (0-based): page 500 without walking 499 pages. */
async function cursorAt(s: Store, offset: number): Promise<string> {
  const rows = (await s.dataSource.query(
    `SELECT id, created_at FROM invoice_payments_invoice ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ${offset - 1}`,
  )) as Array<{ id: string; created_at: string }>;
  // A small store has no page 500: the cursor after its oldest row (an empty page), as the page would ask.
  if (rows.length === 0) return cursorAt(s, s.n);
  return encodeCursor({ createdAt: rows[0].created_at, id: rows[0].id });
}

async function checkoutTimes(s: Store, calls: number): Promise<string> {
  const provider = s.app.get(InvoicePaymentProvider);
  const samples: number[] = [];
  for (let i = 0; i <= calls; i++) {
    const started = performance.now();
    await provider.initiatePayment(checkout(makeOrder(), 'pix'));
    if (i > 0) samples.push(performance.now() - started);
  }
  return median(samples);
}

/** From the service's payment until the module has applied it (its `StatusChanged` event, paid). */
async function paymentTimes(s: Store, calls: number, sandbox: SandboxServer): Promise<string> {
  const provider = s.app.get(InvoicePaymentProvider);
  const events = s.app.get(EventEmitter2);
  const samples: number[] = [];
  for (let i = 0; i <= calls; i++) {
    const order = makeOrder();
    const session = await provider.initiatePayment(checkout(order, 'pix'));
    const applied = new Promise<void>((resolve) => {
      const listener = (change: PaymentStatusChange) => {
        if (change.orderId !== order.id || change.current.code !== 5) return;
        events.off(InvoicePaymentsEvents.StatusChanged, listener);
        resolve();
      };
      events.on(InvoicePaymentsEvents.StatusChanged, listener);
    });
    const started = performance.now();
    await sandbox.controls.pay(session.data.gatewayId as string);
    await applied;
    if (i > 0) samples.push(performance.now() - started);
  }
  return median(samples);
}

/** The store's database, seeded (or reused), and its app started. */
async function startStore(dialect: SeedDialect, n: number, sandbox: SandboxServer): Promise<Store> {
  const name = `bench_scale_${n >= 1_000_000 ? `${n / 1_000_000}m` : n >= 1000 ? `${n / 1000}k` : n}`;
  let location: string;
  let seeded: number | null;
  if (dialect === 'postgres') {
    const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const prepared = await preparePostgresStore(adminUrl, name, n);
    await prepared.dataSource.destroy();
    seeded = prepared.seededSeconds;
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    location = url.toString();
  } else {
    location = join(tmpdir(), `${name}.sqlite`);
    seeded = null;
    if (!existsSync(location) || process.env.BENCH_SCALE_RESEED === '1') {
      rmSync(location, { force: true });
      const ds = await openStore('sqlite', location);
      const started = performance.now();
      await seedStore(ds, 'sqlite', n);
      seeded = (performance.now() - started) / 1000;
      await ds.destroy();
    }
  }
  const started = await startApp(dialect, location, sandbox);
  return { label: `${n} invoices`, n, location, seeded, ...started };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The app as a store runs it: production defaults, the admin API, the workers; webhooks come back to it. */
async function startApp(
  dialect: SeedDialect,
  location: string,
  sandbox: SandboxServer,
): Promise<Pick<Store, 'app' | 'url' | 'dataSource' | 'close'>> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database: DataSourceOptions =
    dialect === 'postgres'
      ? { type: 'postgres', url: location, extra: { max: 10 } }
      : { type: 'better-sqlite3', database: location };

  @Module({
    imports: [
      TypeOrmModule.forRoot({ ...database, entities: [...INVOICE_PAYMENTS_ENTITIES] }),
      EventEmitterModule.forRoot(),
      InvoicePaymentsModule.forRoot({
        gateway: { baseUrl: sandbox.url, accessToken: TOKEN, mode: 'sandbox' },
        checkout: { publicWebhookUrl: `${url}/webhooks/invoice-payments` },
        admin: { adminKey: ADMIN_KEY },
      }),
    ],
  })
  class ScaleHostModule {}

  const app = await NestFactory.create(ScaleHostModule, { logger: ['error', 'warn'] });
  await app.listen(port, '127.0.0.1');
  const { DataSource: DataSourceClass } = await import('typeorm');
  const dataSource = app.get(DataSourceClass);
  return { app, url, dataSource, close: () => app.close() };
}

/**
 * The first start after an upgrade: `backlog` inbox rows past their retention wait for the purge. The start is
 * timed (the purge must not hold it up), then a checkout during the purge, then the purge to its end.
 */
async function firstStartWithBacklog(
  dialect: SeedDialect,
  n: number,
  backlog: number,
  sandbox: SandboxServer,
): Promise<void> {
  const name = `bench_scale_${n >= 1_000_000 ? `${n / 1_000_000}m` : `${n / 1000}k`}`;
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const ds = await openStore(dialect, url.toString());
  await insertInboxBacklog(ds, dialect, backlog);
  const left = async () =>
    Number(
      (
        (await ds.query(
          `SELECT COUNT(*) AS n FROM invoice_payments_webhook_inbox WHERE id LIKE '0000000c-%'`,
        )) as Array<{
          n: string;
        }>
      )[0].n,
    );
  console.log(`\nfirst start with ${backlog} old inbox rows to purge (${n} invoices):`);
  const started = performance.now();
  const app = await startApp(dialect, url.toString(), sandbox);
  console.log(`  start: ${(performance.now() - started).toFixed(0)} ms`);
  const store = { ...app, label: 'backlog', n, location: url.toString(), seeded: null };
  await new Promise((r) => setTimeout(r, 1_000));
  console.log(`  checkout during the purge: ${await checkoutTimes(store, 5)} (${await left()} rows left)`);
  const purgeStarted = performance.now();
  while ((await left()) > 0 && performance.now() - purgeStarted < 600_000) {
    await new Promise((r) => setTimeout(r, 1_000));
  }
  console.log(`  purge done about ${((performance.now() - started) / 1000).toFixed(0)} s after the start`);
  await app.close();
  await ds.destroy();
}
