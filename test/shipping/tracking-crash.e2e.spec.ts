import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { systemClock } from '../../src/domain/clock';
import { TrackingOutboxStore } from '../../src/shipping/tracking-outbox.store';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import type { CrashingInstanceConfig } from './crashing-instance';
import { waitFor } from '../support/wait-for';
import { openShippingScene, ShippingApp, TOKEN, TRACKING_PATH } from './support';

const ROOT = join(__dirname, '..', '..');
// Each crash is a child process that ts-node compiles first: tens of seconds on a busy machine.
jest.setTimeout(90_000);
/** The crashed instance's lease: how long the row stays its own before another instance may take it. */
const LEASE_MS = 300;

/** Runs `crashing-instance.ts` in a child process (ts-node, transpile only) and resolves with how it ended. */
function runCrashingInstance(
  config: CrashingInstanceConfig,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'),
        '--transpile-only',
        join('test', 'shipping', 'crashing-instance.ts'),
      ],
      {
        cwd: ROOT,
        env: { ...process.env, CRASHING_INSTANCE: JSON.stringify(config) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

/** How the child reaches the test's database: the connection only (entities and migrations are its own). */
function connectionOf(db: TestDatabase): DataSourceOptions {
  const { type, url, database, extra } = db.options as DataSourceOptions & {
    url?: string;
    database?: string;
    extra?: unknown;
  };
  return { type, url, database, extra } as DataSourceOptions;
}

describeEachDatabase(
  'shipping: a tracking post that may have landed is read back before it is sent again',
  (kind) => {
    const scene = openShippingScene(kind);
    let app: ShippingApp;

    beforeAll(async () => {
      app = await scene.start();
    });

    /** The order's shipment recorded, then an instance that claims it and dies by SIGKILL at `crash`. */
    async function crashWhilePosting(crash: CrashingInstanceConfig['crash'], code: string) {
      const order = await scene.order();
      await app.tracking.recordShipment({ orderId: order.orderId, trackingCode: code });
      const end = await runCrashingInstance({
        database: connectionOf(scene.db),
        baseUrl: scene.h.proxy.url,
        accessToken: TOKEN,
        leaseMs: LEASE_MS,
        crash,
      });
      expect({ signal: end.signal, output: end.signal === 'SIGKILL' ? '' : end.output }).toEqual({
        signal: 'SIGKILL',
        output: '',
      });
      const posts = () =>
        scene.h
          .trackingRequests()
          .filter((r) => r.invoiceId === order.record.gatewayInvoiceId && r.code === code);
      return { ...order, posts };
    }

    /** Runs this instance's worker until it has taken the row back (once its lease lapsed or its retry is due). */
    async function takeOver(instance: ShippingApp) {
      let result = await instance.worker.runOnce();
      await waitFor(
        async () => {
          if (result.claimed === 0) result = await instance.worker.runOnce();
          return result.claimed > 0;
        },
        15_000,
        'the row to be due again',
      );
      return result;
    }

    it('killed after the service answered: another instance reads the code back and does not post it again', async () => {
      const code = 'BR100000001BR';
      const { orderId, record, posts } = await crashWhilePosting('after-answer', code);
      expect(posts()).toHaveLength(1);
      const outbox = scene.db.dataSource.getRepository(TrackingOutbox);
      expect(await outbox.findOneByOrFail({ orderId })).toMatchObject({ status: 'pending', attempts: 1 });

      const result = await takeOver(app);

      expect(result).toMatchObject({ claimed: 1, sent: 1 });
      expect(posts()).toHaveLength(1);
      expect(await outbox.findOneByOrFail({ orderId })).toMatchObject({ status: 'sent', attempts: 2 });
      expect(scene.h.sandbox.controls.renderInvoice(record.gatewayId!)!.tracking?.code).toBe(code);
      expect(app.posted.filter((e) => e.orderId === orderId)).toHaveLength(1);
    });

    it('killed before the request left: another instance finds no code at the service and posts it once', async () => {
      const code = 'BR100000002BR';
      const { orderId, posts } = await crashWhilePosting('before-post', code);
      expect(posts()).toHaveLength(0);

      const result = await takeOver(app);

      expect(result).toMatchObject({ claimed: 1, sent: 1 });
      expect(posts()).toHaveLength(1);
      const row = await scene.db.dataSource.getRepository(TrackingOutbox).findOneByOrFail({ orderId });
      expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    });

    it('a post whose answer was lost (connection dropped after the service took it) is read back, not posted again', async () => {
      const { orderId, record } = await scene.order();
      const code = 'BR100000004BR';
      scene.h.proxy.addRule({
        match: (r) => r.method === 'POST' && r.path === TRACKING_PATH,
        action: { kind: 'drop' },
        times: 1,
      });
      await app.tracking.recordShipment({ orderId, trackingCode: code });
      const posts = () => scene.h.trackingRequests().filter((r) => r.invoiceId === record.gatewayInvoiceId);

      expect(await app.worker.runOnce()).toMatchObject({ claimed: 1, retried: 1 });
      const outbox = scene.db.dataSource.getRepository(TrackingOutbox);
      expect(await outbox.findOneByOrFail({ orderId })).toMatchObject({ lastErrorKind: 'outcome_unknown' });
      const result = await takeOver(app);

      expect(result).toMatchObject({ claimed: 1, sent: 1 });
      expect(posts()).toHaveLength(1);
      expect(await outbox.findOneByOrFail({ orderId })).toMatchObject({ status: 'sent', attempts: 2 });
    });

    it('a service whose invoices do not show the code: the row fails for a person, never posted twice', async () => {
      const blind = await scene.start({}, { profile: { readBack: { trackingCode: null } } });
      try {
        const { orderId, record } = await scene.order();
        await blind.tracking.recordShipment({ orderId, trackingCode: 'BR100000003BR' });
        // An instance claimed the row and vanished: whether its post left is unknown.
        await new TrackingOutboxStore(scene.db.dataSource, systemClock).claim('vanished-instance#1', 10, 1);
        const before = scene.h.trackingRequests().length;

        const result = await takeOver(blind);

        expect(result).toMatchObject({ claimed: 1, failed: 1 });
        expect(scene.h.trackingRequests()).toHaveLength(before);
        const row = await scene.db.dataSource.getRepository(TrackingOutbox).findOneByOrFail({ orderId });
        expect(row).toMatchObject({ status: 'failed', lastErrorKind: 'outcome_unknown' });
        expect(blind.alerts).toEqual([
          expect.objectContaining({ kind: 'tracking_failed', invoiceRecordId: record.id }),
        ]);
      } finally {
        await blind.close();
      }
    });
  },
);
