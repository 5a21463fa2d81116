import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { HealthOptions } from '../../src/options/health.options';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { openCheckoutDatabase } from '../checkout/support';
import { waitFor } from '../support/app';
import { describeEachDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { type RootApp, startRootApp } from '../support/root-app';
import { HealthModule } from './health-controller';
import { type ServiceSwitch, startServiceSwitch } from './service-switch';

const TOKEN = `tok-${randomUUID()}`;
/** Connections kept open between checks, as a prober's are: each measured time is the answer's, not a handshake. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** terminus' answer: `error` holds the indicators that are down. */
type HealthBody = { status: string; error?: Record<string, Record<string, unknown>> };

/** One GET on loopback: its status, body and how long the answer took. */
function get(url: string): Promise<{ status: number; body: HealthBody; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()), ms });
        });
      })
      .on('error', reject);
  });
}

/** The module in a host app, its service behind a switch on loopback, and the docs' health routes. */
async function startStack(kind: DatabaseKind, health?: HealthOptions) {
  const db: TestDatabase = await openCheckoutDatabase(kind);
  const sandbox: SandboxServer = await startSandbox({ tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }] });
  const service: ServiceSwitch = await startServiceSwitch(sandbox.url);
  const host: RootApp = await startRootApp(
    db,
    sandbox,
    { gateway: { baseUrl: service.url, accessToken: TOKEN, mode: 'sandbox' }, health },
    [HealthModule],
  );
  return {
    sandbox,
    service,
    host,
    health: (path = '') => get(`${host.url}/health${path}`),
    /** A call of the module's own that the service answers: the latest word on it is `ok`, now. */
    answered: () => host.app.get(GatewayClient).listInvoices({ limit: 1 }),
    async close() {
      await service.close();
      await host.close();
      await sandbox.close();
      await db.destroy();
    },
  };
}
type Stack = Awaited<ReturnType<typeof startStack>>;

/**
 * From the service's last answer, `fault()` on: polls `/health` until it answers 503 or `deadlineMs` passes,
 * timing every answer. The slowest answer and the time to 503 are returned.
 */
async function timeToDown(stack: Stack, fault: () => void, deadlineMs: number) {
  await stack.answered();
  fault();
  const started = Date.now();
  const times: number[] = [];
  const answer = async () => {
    const health = await stack.health();
    times.push(health.ms);
    return health.status === 503 ? health : null;
  };
  const last = await waitFor(answer, deadlineMs, '/health answering 503', 20);
  const downAfterMs = Date.now() - started;
  times.sort((a, b) => a - b);
  return { ...latency(times), downAfterMs, body: last.body };
}

/**
 * The answers' median and slowest. The median is held to 50 ms; the slowest only to Kubernetes' default probe
 * timeout (1 s): on a loaded machine one answer may wait for the CPU, never for the service.
 */
function latency(sorted: number[]) {
  return { median: sorted[Math.floor(sorted.length / 2)], slowest: sorted[sorted.length - 1] };
}

function expectPromptAnswers(measured: { median: number; slowest: number }) {
  expect(measured.median).toBeLessThan(50);
  expect(measured.slowest).toBeLessThan(1000);
}

const FAST = { checkIntervalMs: 100, probeIntervalMs: 400, probeTimeoutMs: 400 };
/** The documented bound (check + probe interval + probe timeout), and a second of leeway for a busy machine. */
const FAST_DEADLINE = FAST.checkIntervalMs + FAST.probeIntervalMs + FAST.probeTimeoutMs + 1000;

describeEachDatabase('/health while the service hangs, refuses the credential or is down', (kind) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(kind, FAST);
  });
  afterAll(() => stack?.close());

  const up = () => waitFor(async () => (await stack.health()).status === 200, 10_000, '/health up');

  it('answers at once and turns 503 within the probe bounds when the service hangs; pod probes stay up', async () => {
    await up();
    const hung = await timeToDown(stack, () => stack.service.hang(), FAST_DEADLINE);
    expectPromptAnswers(hung);
    expect(hung.body.error?.invoice_payments).toMatchObject({
      status: 'down',
      service: { reachable: false, lastCall: 'timeout' },
      database: 'up',
      problems: ['service: not answering'],
    });
    // Liveness and readiness leave the service out: a hanging service neither restarts nor unroutes the pod.
    for (const path of ['/live', '/ready']) {
      const probe = await stack.health(path);
      expect([path, probe.status]).toEqual([path, 200]);
      expect(probe.ms).toBeLessThan(1000);
    }
    stack.service.answer();
    await up();
  });

  it('turns 503 when the service refuses the credential, and when it drops connections', async () => {
    await up();
    const refused = await timeToDown(
      stack,
      () => stack.sandbox.controls.addFault({ status: 401 }),
      FAST_DEADLINE,
    );
    expectPromptAnswers(refused);
    expect(refused.body.error?.invoice_payments?.problems).toEqual(['service: credential refused']);
    stack.sandbox.controls.clearFaults();
    await up();

    const dropped = await timeToDown(
      stack,
      () => stack.sandbox.controls.addFault({ dropConnection: true }),
      FAST_DEADLINE,
    );
    expectPromptAnswers(dropped);
    expect(dropped.body.error?.invoice_payments).toMatchObject({
      // `network` once the client's retries are spent; `timeout` if the probe's deadline came first.
      service: { reachable: false, lastCall: expect.stringMatching(/^(network|timeout)$/) },
      problems: ['service: not answering'],
    });
    expect((await stack.health('/ready')).status).toBe(200);
    stack.sandbox.controls.clearFaults();
    await up();
  });
});

describeEachDatabase('/health with the default settings', (kind) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(kind);
  });
  afterAll(() => stack?.close());

  it('reports a service that hangs within 45 s, answering at once meanwhile', async () => {
    await waitFor(async () => (await stack.health()).status === 200, 10_000, '/health up');
    const hung = await timeToDown(stack, () => stack.service.hang(), 45_000);
    expect(hung.downAfterMs).toBeLessThanOrEqual(45_000);
    expectPromptAnswers(hung);
    expect(hung.body.error?.invoice_payments?.service).toMatchObject({ reachable: false });
    process.stdout.write(
      `[${kind}] default settings: 503 after ${hung.downAfterMs} ms; /health median ` +
        `${hung.median.toFixed(1)} ms, slowest ${hung.slowest.toFixed(1)} ms\n`,
    );
  }, 60_000);
});
