/**
 * Webhook and checkout paths against their physical cost, on PostgreSQL, in one run (issue 14):
 *
 * - webhook: the bare baseline (node:http + one pg UPDATE per request) and the module's route, interleaved over
 *   `BENCH_ROUNDS` rounds, each fed real deliveries exported from the sandbox with their headers (each round
 *   replays them under fresh `delivery_id`s, after putting the records back to their checkout status so the
 *   deliveries make real transitions and reach the order port); throughput, p50/p99, SQL statements and
 *   transactions per delivery, backlog when the load stops and the time to drain it.
 * - checkout: `initiatePayment` against a raw POST of the same body to the same sandbox.
 * - feed: deliveries at a fixed rate (`BENCH_FEED` deliveries at `BENCH_FEED_RATE`/s; `BENCH_LONG=1`: 50,000),
 *   sampling the host's RSS and heap; backlog and drain at the end.
 *
 * The servers run in a forked host process (bench/host.ts); this process runs the sandbox and the load.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { startSandbox, type SandboxServer } from '../src/sandbox';
import { fixed, mb, ms, percentiles, type Percentiles } from './stats';

const TOKEN = 'bench-token-0123456789';
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

interface Delivery {
  headers: Record<string, string | string[]>;
  body: Record<string, unknown>;
}

interface HostStats {
  statements: number;
  transactions: number;
  pending: number;
  undelivered: number;
  inbox: number;
  rss: number;
  heapUsed: number;
  /** Invoice lookups the module made at the service so far. */
  lookups: number;
  /** The host process's CPU time so far (user + system), microseconds. */
  cpuMicros: number;
}

/** The forked host process, driven by request/answer messages. */
class Host {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private constructor(private readonly child: ChildProcess) {
    child.on('message', (msg: { id: number; result?: unknown; error?: string }) => {
      const w = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) w?.reject(new Error(msg.error));
      else w?.resolve(msg.result);
    });
  }
  static start(): Host {
    // `BENCH_CPU_PROF=dir`: a V8 CPU profile of the host, written to `dir` when it exits (open it in Chrome DevTools).
    const profile = process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
    const child = fork(join(__dirname, 'host.ts'), [], {
      execArgv: ['-r', join(__dirname, 'transpile.js'), ...profile],
      stdio: 'inherit',
    });
    return new Host(child);
  }
  call<T>(cmd: string, args: unknown = {}): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, cmd, args });
    });
  }
  stats(): Promise<HostStats> {
    return this.call<HostStats>('stats');
  }
  async stop(): Promise<void> {
    await this.call('close').catch(() => undefined);
    if (this.child.exitCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    }
    if (this.child.exitCode === null) this.child.kill();
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** `status` 0: no answer; `error` then says why (a socket error's code). */
function post(url: string, delivery: Delivery): Promise<{ ms: number; status: number; error?: string }> {
  const payload = JSON.stringify(delivery.body);
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...delivery.headers, 'Content-Length': String(Buffer.byteLength(payload)) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', (err: Error & { code?: string }) =>
      resolve({ ms: performance.now() - started, status: 0, error: err.code ?? err.message }),
    );
    req.end(payload);
  });
}

/** Closed loop: `concurrency` senders go through `deliveries` as fast as answers come. */
async function closedLoop(url: string, deliveries: Delivery[], concurrency: number) {
  const cpu0 = process.cpuUsage();
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < deliveries.length) {
        const d = deliveries[next++];
        const r = await post(url, d);
        latencies.push(r.ms);
        if (r.status < 200 || r.status >= 300) failed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (process.env.BENCH_SELF_CPU)
    console.log(
      `  (bench process: ${((cpu.user + cpu.system) / 1000 / deliveries.length).toFixed(2)} ms CPU per request, ${((cpu.user + cpu.system) / 10000 / seconds).toFixed(0)}% of a core)`,
    );
  return { rate: deliveries.length / seconds, latency: percentiles(latencies), failed, seconds };
}

/** Copies of the exported deliveries under fresh delivery ids (the route dedupes on them). */
function replay(exported: Delivery[], tag: string, copies: number): Delivery[] {
  const out: Delivery[] = [];
  for (let c = 0; c < copies; c++) {
    for (const d of exported) {
      out.push({
        headers: d.headers,
        body: { ...d.body, delivery_id: `${String(d.body.delivery_id)}.${tag}.${c}` },
      });
    }
  }
  return out;
}

/** Waits until the inbox has no pending entry and every applied change reached the port. */
async function drain(host: Host, timeoutMs: number): Promise<{ ms: number; left: HostStats }> {
  const started = performance.now();
  let s = await host.stats();
  while ((s.pending > 0 || s.undelivered > 0) && performance.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 50));
    s = await host.stats();
  }
  return { ms: performance.now() - started, left: s };
}

const line = (label: string, p: Percentiles, rate: number) =>
  `${label.padEnd(9)} ${fixed(rate, 0).padStart(6)}/s  p50 ${ms(p.p50).padStart(9)}  p99 ${ms(p.p99).padStart(9)}`;

async function withDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const admin = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const name = `nip_bench_${randomBytes(4).toString('hex')}`;
  const run = async (sql: string) => {
    const c = new Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

export interface ServerBenchParts {
  webhook: boolean;
  checkout: boolean;
  feed: boolean;
}

export async function runServerBench(parts: ServerBenchParts): Promise<void> {
  await withDatabase(async (dbUrl) => {
    const sandbox: SandboxServer = await startSandbox({
      port: 0,
      tokens: [{ token: TOKEN, scopes: ['invoice.read', 'invoice.write', 'invoice.update'] }],
    });
    const host = Host.start();
    try {
      const { baselineUrl, floorUrl, moduleUrl } = await host.call<{
        baselineUrl: string;
        floorUrl: string;
        moduleUrl: string;
      }>('init', {
        dbUrl,
        sandboxUrl: sandbox.url,
        token: TOKEN,
      });
      if (parts.webhook || parts.feed) {
        const exported = await exportDeliveries(host, sandbox, env('BENCH_INVOICES', 200));
        if (parts.webhook) await webhookPart(host, exported, { baselineUrl, floorUrl, moduleUrl });
        if (parts.feed) await feedPart(host, exported, moduleUrl);
      }
      if (parts.checkout) await checkoutPart(host, sandbox);
    } finally {
      await host.stop();
      await sandbox.close();
      agent.destroy();
    }
  });
}

/** Checks out `n` orders in the host, pays them at the sandbox with deliveries held, and exports the deliveries. */
async function exportDeliveries(host: Host, sandbox: SandboxServer, n: number): Promise<Delivery[]> {
  sandbox.controls.setWebhookFaults({ hold: true });
  const started = performance.now();
  const { gatewayIds } = await host.call<{ gatewayIds: string[] }>('checkoutOrders', { n, concurrency: 16 });
  for (const id of gatewayIds) await sandbox.controls.pay(id);
  const exported = sandbox.controls
    .deliveries()
    .filter((e) => e.invoiceId !== null)
    .map((e) => ({ headers: e.headers, body: e.body as unknown as Record<string, unknown> }));
  console.log(
    `setup: ${n} orders checked out and paid in ${fixed((performance.now() - started) / 1000, 1)} s; ` +
      `${exported.length} deliveries exported from the sandbox (headers and bodies)`,
  );
  return exported;
}

async function webhookPart(
  host: Host,
  exported: Delivery[],
  { baselineUrl, floorUrl, moduleUrl }: { baselineUrl: string; floorUrl: string; moduleUrl: string },
) {
  const rounds = env('BENCH_ROUNDS', 3);
  const copies = env('BENCH_COPIES', 3);
  const concurrency = env('BENCH_CONCURRENCY', 32);
  console.log(
    `\n== webhook: ${rounds} interleaved rounds, ${exported.length * copies} deliveries each, ${concurrency} concurrent senders ==`,
  );
  // Warm both up (JIT, pools, the token cache) outside the figures.
  await closedLoop(baselineUrl, replay(exported, 'warm', 1).slice(0, 200), concurrency);
  await closedLoop(floorUrl, replay(exported, 'warm', 1).slice(0, 200), concurrency);
  await closedLoop(moduleUrl, replay(exported, 'warm', 1).slice(0, 200), concurrency);
  await drain(host, 60_000);
  const base: Array<{ rate: number; latency: Percentiles; perReq: number }> = [];
  const floors: Array<{ rate: number; latency: Percentiles }> = [];
  const mod: Array<{
    rate: number;
    latency: Percentiles;
    perDelivery: number;
    txPerDelivery: number;
    cpuMsPerDelivery: number;
    backlog: number;
    drainMs: number;
  }> = [];
  for (let round = 1; round <= rounds; round++) {
    const load = replay(exported, `r${round}`, copies);
    let s0 = await host.stats();
    const b = await closedLoop(baselineUrl, load, concurrency);
    let s1 = await host.stats();
    const cpuPerReq = (a: HostStats, z: HostStats) => (z.cpuMicros - a.cpuMicros) / 1000 / load.length;
    base.push({ rate: b.rate, latency: b.latency, perReq: (s1.statements - s0.statements) / load.length });
    console.log(
      `${line(`baseline`, b.latency, b.rate)}  ${fixed(base.at(-1)!.perReq, 1)} stmt/req, ${fixed(cpuPerReq(s0, s1), 2)} ms host CPU  failed ${b.failed}`,
    );

    s0 = await host.stats();
    const f = await closedLoop(floorUrl, load, concurrency);
    s1 = await host.stats();
    floors.push({ rate: f.rate, latency: f.latency });
    console.log(
      `${line('nest floor', f.latency, f.rate)}  ${fixed(cpuPerReq(s0, s1), 2)} ms host CPU (Nest + Express + TypeORM, one INSERT)  failed ${f.failed}`,
    );

    await host.call('resetStatuses');
    s0 = await host.stats();
    const m = await closedLoop(moduleUrl, load, concurrency);
    s1 = await host.stats();
    const d = await drain(host, 300_000);
    const statements = d.left.statements - s0.statements;
    const cpuMs = (d.left.cpuMicros - s0.cpuMicros) / 1000;
    const transactions = d.left.transactions - s0.transactions;
    mod.push({
      rate: m.rate,
      latency: m.latency,
      perDelivery: statements / load.length,
      txPerDelivery: transactions / load.length,
      cpuMsPerDelivery: cpuMs / load.length,
      backlog: s1.pending,
      drainMs: d.ms,
    });
    console.log(
      `${line('module', m.latency, m.rate)}  ${fixed(statements / load.length, 1)} stmt, ${fixed(transactions / load.length, 1)} tx, ` +
        `${fixed(cpuMs / load.length, 2)} ms host CPU, ${fixed((d.left.lookups - s0.lookups) / load.length, 2)} lookups per delivery  ` +
        `backlog ${s1.pending} (+${s1.undelivered} to notify) drained in ${fixed(d.ms / 1000, 1)} s` +
        `${d.left.pending || d.left.undelivered ? ` (NOT drained: ${d.left.pending} pending)` : ''}  failed ${m.failed}`,
    );
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bRate = med(base.map((b) => b.rate));
  const mRate = med(mod.map((m) => m.rate));
  const fRate = med(floors.map((f) => f.rate));
  console.log(
    `webhook summary (medians of rounds): baseline ${fixed(bRate, 0)}/s p99 ${ms(med(base.map((b) => b.latency.p99)))}; ` +
      `module ${fixed(mRate, 0)}/s p50 ${ms(med(mod.map((m) => m.latency.p50)))} p99 ${ms(med(mod.map((m) => m.latency.p99)))}; ` +
      `nest floor ${fixed(fRate, 0)}/s p99 ${ms(med(floors.map((f) => f.latency.p99)))} (${fixed(fRate / bRate)}x baseline); ` +
      `module/baseline ${fixed(mRate / bRate)}x (each round's: ${mod.map((m, i) => fixed(m.rate / base[i].rate)).join(', ')}; target >= 0.5x, p99 < 50 ms); ${fixed(med(mod.map((m) => m.perDelivery)), 1)} statements and ` +
      `${fixed(med(mod.map((m) => m.txPerDelivery)), 1)} transactions and ${fixed(med(mod.map((m) => m.cpuMsPerDelivery)), 2)} ms host CPU ` +
      `per delivery end to end (ack, processing, notification; target <= 0.6 ms); backlog ${med(mod.map((m) => m.backlog))}, ` +
      `drain ${fixed(med(mod.map((m) => m.drainMs)) / 1000, 1)} s`,
  );
}

/** Deliveries at a fixed rate (open loop, at most 256 in flight), sampling the host's memory. */
async function feedPart(host: Host, exported: Delivery[], moduleUrl: string) {
  const total = process.env.BENCH_LONG ? 50_000 : env('BENCH_FEED', 4_000);
  const rate = env('BENCH_FEED_RATE', 200);
  console.log(`\n== feed: ${total} deliveries at ${rate}/s to the module ==`);
  await host.call('resetStatuses');
  await host.call('gc');
  const s0 = await host.stats();
  const samples: HostStats[] = [s0];
  const latencies: number[] = [];
  let sent = 0;
  let inFlight = 0;
  let skipped = 0;
  let failed = 0;
  const failures = new Map<string, number>();
  let copy = 0;
  const next = (): Delivery => {
    const d = exported[sent % exported.length];
    if (sent % exported.length === 0) copy++;
    return {
      headers: d.headers,
      body: { ...d.body, delivery_id: `${String(d.body.delivery_id)}.feed.${copy}` },
    };
  };
  const started = performance.now();
  let lastSample = started;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      while (sent < due) {
        if (inFlight >= 256) {
          skipped++;
          break;
        }
        const d = next();
        sent++;
        inFlight++;
        void post(moduleUrl, d).then((r) => {
          inFlight--;
          latencies.push(r.ms);
          if (r.status < 200 || r.status >= 300) {
            failed++;
            const kind = r.status === 0 ? (r.error ?? 'no answer') : String(r.status);
            failures.set(kind, (failures.get(kind) ?? 0) + 1);
          }
        });
      }
      if (performance.now() - lastSample > 5000) {
        lastSample = performance.now();
        void host.stats().then((s) => samples.push(s));
      }
      if (sent >= total && inFlight === 0) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  const seconds = (performance.now() - started) / 1000;
  const end = await host.stats();
  const d = await drain(host, 300_000);
  await host.call('gc');
  const after = await host.stats();
  const p = percentiles(latencies);
  const rss = samples.map((s) => s.rss);
  const heap = samples.map((s) => s.heapUsed);
  console.log(
    `fed ${total} in ${fixed(seconds, 1)} s (${fixed(total / seconds, 0)}/s; sender lagged ${skipped} ticks)  p50 ${ms(p.p50)} p99 ${ms(p.p99)}  failed ${failed}` +
      (failed ? ` (${[...failures].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''),
  );
  console.log(
    `backlog at the end of the feed: ${end.pending} pending (+${end.undelivered} to notify); drained in ${fixed(d.ms / 1000, 1)} s` +
      `${d.left.pending ? ` (NOT drained: ${d.left.pending} still pending)` : ''}; ` +
      `${fixed((d.left.statements - s0.statements) / total, 1)} statements per delivery`,
  );
  console.log(
    `host memory: RSS start ${mb(s0.rss)}, peak ${mb(Math.max(...rss))}, after drain+gc ${mb(after.rss)}; ` +
      `heap start ${mb(s0.heapUsed)}, peak ${mb(Math.max(...heap))}, after drain+gc ${mb(after.heapUsed)} (${samples.length} samples)`,
  );
}

async function checkoutPart(host: Host, sandbox: SandboxServer) {
  const n = env('BENCH_CHECKOUTS', 300);
  console.log(
    `\n== checkout: initiatePayment vs a raw POST of the same body, ${n} sequential each (interleaved), then 32 concurrent ==`,
  );
  const r = await host.call<{
    module: Percentiles;
    raw: Percentiles;
    fetch: Percentiles;
    floor: Percentiles;
    statementsPerCall: number;
    moduleCpuMs: number;
    rawCpuMs: number;
    moduleRate: number;
    rawRate: number;
    floorRate: number;
    bodyBytes: number;
  }>('checkoutBench', { sandboxUrl: sandbox.url, n, rounds: 3 });
  console.log(
    `raw POST         median ${ms(r.raw.p50)}  p99 ${ms(r.raw.p99)}  ${fixed(r.rawCpuMs, 2)} ms host CPU per call  (${r.bodyBytes}-byte body)`,
  );
  console.log(`raw POST (fetch) median ${ms(r.fetch.p50)}  p99 ${ms(r.fetch.p99)}`);
  console.log(
    `checkout floor   median ${ms(r.floor.p50)}  p99 ${ms(r.floor.p99)}  (claim committed, raw POST, settle + history committed: plain pg, no module code)`,
  );
  console.log(
    `initiatePayment  median ${ms(r.module.p50)}  p99 ${ms(r.module.p99)}  ${fixed(r.moduleCpuMs, 2)} ms host CPU per call  ${fixed(r.statementsPerCall, 1)} statements per call`,
  );
  console.log(
    `checkout summary: median ratio ${fixed(r.module.p50 / r.raw.p50)}x a raw POST; 32 concurrent: ${fixed(r.moduleRate, 0)}/s vs ${fixed(r.rawRate, 0)}/s raw (${fixed(r.moduleRate / r.rawRate)})`,
  );
  console.log(
    `checkout floor: median ${fixed(r.floor.p50 / r.raw.p50)}x a raw POST; 32 concurrent ${fixed(r.floorRate, 0)}/s (${fixed(r.floorRate / r.rawRate)}); the module's median ${fixed(r.module.p50 / r.floor.p50)}x the floor`,
  );
  const steps = await host.call<Record<string, number>>('checkoutSteps', { n });
  console.log(
    `host CPU by step, ms per checkout (${n} sequential, the status delivery drained between them):\n  ` +
      Object.entries(steps)
        .map(([step, msPerCall]) => `${step} ${fixed(msPerCall, 2)}`)
        .join(', '),
  );
}
