import { randomUUID } from 'node:crypto';
import { CLOCK } from '../../src/domain/clock';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { LOOKUP_BURST } from '../../src/webhooks/invoice-lookup';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { ManualClock } from '../support/clock';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  openWebhooksDatabase,
  postDelivery,
  sandboxDeliveryParts,
  startWebhookApp,
  tokenLine,
  type WebhookApp,
} from './support';

const RETRY_BASE_MS = 60_000;
const UNKNOWN_WINDOW_MS = 3_600_000;
const LOOKUP_WINDOW_MS = 1000;

/**
 * The inbox's due times on the module's clock: a retry's backoff, an invoice's lookup turn and the window an unknown
 * invoice is retried within pass when the test moves the clock, never by waiting. The periodic poll is off: a round
 * runs when a delivery arrives and when the test settles the app, so "not yet" is seen after a round that ran.
 */
describeEachDatabase('webhooks: due times on the clock', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  let clock: ManualClock;
  let invoice: WireInvoiceCurrent;
  let serviceToken: string;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
  });
  beforeEach(async () => {
    clock = new ManualClock();
    const inbox = {
      pollIntervalMs: 0,
      retryBaseDelayMs: RETRY_BASE_MS,
      retryMaxDelayMs: 4 * RETRY_BASE_MS,
      unknownInvoiceWindowMs: UNKNOWN_WINDOW_MS,
    };
    const webhooks = { lookupWindowMs: LOOKUP_WINDOW_MS, inbox };
    app = await startWebhookApp(db, sandbox, webhooks, undefined, [[CLOCK, clock]]);
    ({ invoice, serviceToken } = await sandboxDeliveryParts(app.gateway, sandbox, db.dataSource));
    // Whatever the sandbox sends of the invoice's creation is taken first: the tests' deliveries meet a quiet inbox.
    await sandbox.controls.waitForDeliveries();
    await app.settle();
  });
  afterEach(async () => {
    sandbox.controls.clearFaults();
    await app?.close();
  });
  afterAll(async () => {
    await sandbox?.close();
    await db?.destroy();
  });

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const post = async (named: WireInvoiceCurrent = invoice): Promise<string> => {
    const body = { event: 'invoice.update', delivery_id: randomUUID(), webhook: 'default', invoice: named };
    const res = await postDelivery(app.url, '/webhooks/invoice-payments', body, [
      'default',
      tokenLine('', serviceToken),
    ]);
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const entry = (id: string) => inbox().findOneByOrFail({ id });

  it('retries a delivery the service could not confirm once the clock passes its backoff, not before', async () => {
    sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 1 });
    const id = await post();
    await app.settle();
    const failed = await entry(id);
    expect(failed).toMatchObject({ state: 'pending', attempts: 1 });
    expect(failed.nextAttemptAt!.getTime()).toBe(clock.now() + RETRY_BASE_MS);

    clock.advance(RETRY_BASE_MS - 1);
    await app.settle();
    expect(await entry(id)).toMatchObject({ state: 'pending', attempts: 1 });

    clock.advance(1);
    await app.settle();
    expect(await entry(id)).toMatchObject({ state: 'processed', attempts: 2 });
  });

  it("puts a delivery past the invoice's burst of lookups off to its turn, taken once the clock reaches it", async () => {
    // Each delivery arrives after the last lookup started, so each needs one of its own, until the burst is spent.
    let later: string | null = null;
    for (let i = 0; i <= LOOKUP_BURST && later === null; i++) {
      const id = await post();
      await app.settle();
      if ((await entry(id)).state === 'pending') later = id;
    }
    if (later === null) throw new Error(`no delivery was put off after ${LOOKUP_BURST + 1} lookups`);
    const putOff = await entry(later);
    expect(putOff).toMatchObject({ state: 'pending', waitingFor: 'lookup' });
    expect(putOff.nextAttemptAt!.getTime()).toBe(clock.now() + LOOKUP_WINDOW_MS);

    clock.advance(LOOKUP_WINDOW_MS);
    await app.settle();
    expect(await entry(later)).toMatchObject({ state: 'processed', waitingFor: null });
  });

  it('retries an invoice under our referrer the service does not know within the window, then dead-letters it', async () => {
    const madeUp = { ...invoice, id: `unknown-${randomUUID()}` };
    const id = await post(madeUp);
    await app.settle();
    expect(await entry(id)).toMatchObject({ state: 'pending', attempts: 1 });

    clock.advance(UNKNOWN_WINDOW_MS - 1);
    await app.settle();
    expect(await entry(id)).toMatchObject({ state: 'pending', attempts: 2 });

    clock.advance(4 * RETRY_BASE_MS);
    await app.settle();
    const dead = await entry(id);
    expect(dead.state).toBe('dead');
    expect(dead.lastError).toContain(`the service does not know invoice ${madeUp.id}`);
    expect(app.alerts.some((a) => a.kind === 'webhook_dead_letter' && a.message.includes(madeUp.id))).toBe(
      true,
    );
  });
});
