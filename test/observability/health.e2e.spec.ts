import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { CLOCK } from '../../src/domain/clock';
import { InvoicePaymentsHealthIndicator } from '../../src/index';
import { type HealthOptions, resolveHealthOptions } from '../../src/options/health.options';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { openCheckoutDatabase } from '../checkout/support';
import { waitFor } from '../support/app';
import { ManualClock } from '../support/clock';
import { describeEachDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { type RootApp, startRootApp } from '../support/root-app';
import { HealthModule } from './health-controller';
import { type ServiceSwitch, startServiceSwitch } from './service-switch';

// Speed figures (how fast /health answers, how long until 503 in real time) are `npm run bench -- health`'s.

const TOKEN = `tok-${randomUUID()}`;

/** terminus' answer: `info` holds the indicators that are up, `error` those that are down. */
type HealthBody = {
  status: string;
  info?: Record<string, Record<string, unknown>>;
  error?: Record<string, Record<string, unknown>>;
};

/** One GET on loopback: its status and body. */
function get(url: string): Promise<{ status: number; body: HealthBody }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      })
      .on('error', reject);
  });
}

/** The module in a host app, its service behind a switch on loopback, and the docs' health routes. */
async function startStack(kind: DatabaseKind, health?: HealthOptions, clock?: ManualClock) {
  const db: TestDatabase = await openCheckoutDatabase(kind);
  const sandbox: SandboxServer = await startSandbox({ tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }] });
  const service: ServiceSwitch = await startServiceSwitch(sandbox.url);
  const host: RootApp = await startRootApp(
    db,
    sandbox,
    { gateway: { baseUrl: service.url, accessToken: TOKEN, mode: 'sandbox' }, health },
    [HealthModule],
    clock ? { overrides: [[CLOCK, clock]] } : {},
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

/** `/health` up, the service's latest word `ok` (the first check's probe has answered: none is in flight). */
function up(stack: Stack) {
  return waitFor(
    async () => {
      const { status, body } = await stack.health();
      const service = body.info?.invoice_payments?.service as { lastCall?: string } | undefined;
      return status === 200 && service?.lastCall === 'ok';
    },
    10_000,
    '/health up, the service answering',
  );
}

/** The module's probe (a one-item list) as the hanging service holds it: read, open, unanswered. */
const isProbe = (line: string) => /^GET \S*invoices\?\S*limit=1\b/.test(line);

describeEachDatabase('/health while the service hangs, on the module clock, default settings', (kind) => {
  const defaults = resolveHealthOptions();
  let clock: ManualClock;
  let stack: Stack;
  let indicator: InvoicePaymentsHealthIndicator;

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await startStack(kind, undefined, clock);
    indicator = stack.host.app.get(InvoicePaymentsHealthIndicator);
    await up(stack);
    await stack.answered();
    stack.service.hang();
  });
  afterEach(() => stack?.close());

  /** A background round that started after the clock's last move (one under way may have read it before). */
  const round = async () => {
    await indicator.runOnce();
    await indicator.runOnce();
  };
  /** The clock moved to the round after the service's silence outlived `probeIntervalMs`: a probe is asked. */
  const probeHeld = async () => {
    clock.advance(defaults.probeIntervalMs + defaults.checkIntervalMs);
    await round();
    await waitFor(() => stack.service.held().some(isProbe), 10_000, 'the probe held by the hanging service');
  };

  it('never waits on the service: several checks answer while the hang holds the probe open', async () => {
    await probeHeld();
    const probe = stack.service.held().filter(isProbe);
    expect(probe).toHaveLength(1);
    // Before the probe's deadline: the service's latest word is still its last answer.
    for (let i = 0; i < 3; i++) {
      expect((await stack.health()).status).toBe(200);
      expect(stack.service.held().filter(isProbe)).toEqual(probe);
    }
    clock.advance(defaults.probeTimeoutMs);
    for (let i = 0; i < 3; i++) {
      const { status, body } = await stack.health();
      expect(status).toBe(503);
      expect(body.error?.invoice_payments).toMatchObject({
        status: 'down',
        service: { reachable: false, lastCall: 'timeout' },
        database: 'up',
        problems: ['service: not answering'],
      });
      // Liveness and readiness leave the service out: a hanging service neither restarts nor unroutes the pod.
      expect((await stack.health('/live')).status).toBe(200);
      expect((await stack.health('/ready')).status).toBe(200);
      // Still the same request, still unanswered: no check waited for it.
      expect(stack.service.held().filter(isProbe)).toEqual(probe);
    }
  });

  it('turns 503 within 45 s of the service’s last answer, and not before the probe’s deadline', async () => {
    const lastAnswer = clock.now();
    // Silent for exactly `probeIntervalMs`: not yet a reason to ask.
    clock.advance(defaults.probeIntervalMs);
    await round();
    expect((await stack.health()).status).toBe(200);
    // The next round (`checkIntervalMs` later) asks; the question goes unanswered until its deadline.
    clock.advance(defaults.checkIntervalMs);
    await round();
    await waitFor(() => stack.service.held().some(isProbe), 10_000, 'the probe held by the hanging service');
    clock.advance(defaults.probeTimeoutMs - 1);
    expect((await stack.health()).status).toBe(200);
    clock.advance(1);
    const down = await stack.health();
    expect(down.status).toBe(503);
    expect(down.body.error?.invoice_payments?.service).toMatchObject({
      reachable: false,
      lastCall: 'timeout',
    });
    // On the module's clock, which only the test moves: the defaults' bound, not a measured time.
    expect(clock.now() - lastAnswer).toBeLessThanOrEqual(45_000);

    stack.service.answer();
    await stack.answered();
    expect((await stack.health()).status).toBe(200);
  });
});

/** Short real intervals; each wait's deadline is the documented bound (interval + interval + timeout) and a margin. */
const FAST = { checkIntervalMs: 100, probeIntervalMs: 400, probeTimeoutMs: 400 };
const FAST_DEADLINE = FAST.checkIntervalMs + FAST.probeIntervalMs + FAST.probeTimeoutMs + 10_000;

describeEachDatabase('/health when the service refuses the credential or drops connections', (kind) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(kind, FAST);
  });
  afterAll(() => stack?.close());

  /** From the service's last answer, `fault()` on: the first 503 `/health` answers. */
  async function downAfter(fault: () => void) {
    await stack.answered();
    fault();
    const down = async () => {
      const health = await stack.health();
      return health.status === 503 ? health : null;
    };
    return (await waitFor(down, FAST_DEADLINE, '/health answering 503', 20)).body;
  }

  it('turns 503 when the service refuses the credential, and when it drops connections', async () => {
    await up(stack);
    const refused = await downAfter(() => stack.sandbox.controls.addFault({ status: 401 }));
    expect(refused.error?.invoice_payments?.problems).toEqual(['service: credential refused']);
    stack.sandbox.controls.clearFaults();
    await up(stack);

    const dropped = await downAfter(() => stack.sandbox.controls.addFault({ dropConnection: true }));
    expect(dropped.error?.invoice_payments).toMatchObject({
      // `network` once the client's retries are spent; `timeout` if the probe's deadline came first.
      service: { reachable: false, lastCall: expect.stringMatching(/^(network|timeout)$/) },
      problems: ['service: not answering'],
    });
    expect((await stack.health('/ready')).status).toBe(200);
    stack.sandbox.controls.clearFaults();
    await up(stack);
  });
});
