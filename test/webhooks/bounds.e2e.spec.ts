import { randomUUID } from 'node:crypto';
import { CLOCK } from '../../src/domain/clock';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { ManualClock } from '../support/clock';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  WebhookApp,
} from './support';

const SANDBOX_INVOICE_CENTS = 2_100;

/** Bounds of the webhook route against floods: forged tokens, and a leaked valid token naming unknown invoices. */
describeEachDatabase('webhooks: bounds against floods', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  const requests: string[] = [];
  const lookups = () => requests.filter((l) => l.startsWith('GET /invoices')).length;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({
      webhookRetry: { attempts: 5, baseDelayMs: 20, factor: 2 },
      log: (line) => requests.push(line),
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await db.destroy();
  });

  it('deliveries naming our referrer under made-up numbers: a budget a window is taken, the rest 503, one lookup each', async () => {
    // The clock stands still: the window and the retries of the service's "unknown" come when the test moves it.
    const clock = new ManualClock();
    const inbox = { pollIntervalMs: 50, unknownLookupsPerWindow: 5, unknownLookupWindowMs: 60_000 };
    const app = await startWebhookApp(db, sandbox, { path: 'limited/hook', inbox }, undefined, [
      [CLOCK, clock],
    ]);
    try {
      const created = await createSandboxInvoice(app.gateway);
      await insertInvoiceRecord(db.dataSource, {
        amountCents: SANDBOX_INVOICE_CENTS,
        gatewayId: created.invoice.id,
        referrer: created.referrer,
      });
      const template = sandbox.controls.renderInvoice(created.invoice.id) as WireInvoiceCurrent;
      const before = lookups();
      const answers = [];
      const post = (i: number) =>
        postDelivery(
          app.url,
          '/limited/hook',
          {
            event: 'invoice.update',
            delivery_id: randomUUID(),
            invoice: { ...template, id: `unknown-${randomUUID()}`, referrer: created.referrer },
          },
          ['default', tokenLine('', `forged-${i}`)],
        );
      for (let i = 0; i < 20; i++) answers.push(await post(i));
      expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(200), ...Array(15).fill(503)]);
      expect(Number(answers[19].headers['retry-after'])).toBeGreaterThan(0);
      await app.settle();
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      const rows = await Promise.all(
        answers.slice(0, 5).map((a) => inbox.findOneByOrFail({ id: a.body.id })),
      );
      // The service does not know those numbers: nothing applied (retried, then dead-lettered, by the inbox).
      expect(rows.every((r) => r.state !== 'processed' && r.invoiceRecordId === null)).toBe(true);
      expect(lookups() - before).toBe(5);
      // The next window takes deliveries again.
      clock.advance(60_000);
      expect((await post(20)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('purges finished rows older than the retention, keeps newer ones and pending ones', async () => {
    const app: WebhookApp = await startWebhookApp(db, sandbox, {
      path: 'purge/hook',
      inbox: { retentionMs: 86_400_000 },
    });
    try {
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      const old = new Date(Date.now() - 2 * 86_400_000);
      const row = (state: WebhookInboxEntry['state'], processedAt: Date | null) =>
        Object.assign(new WebhookInboxEntry(), {
          id: randomUUID(),
          dedupeKey: `test:${randomUUID()}`,
          event: null,
          deliveryId: null,
          webhookId: 'purge-test',
          gatewayId: null,
          referrer: null,
          statusCode: null,
          sentAt: null,
          payload: '{}',
          state,
          attempts: 1,
          nextAttemptAt: state === 'pending' ? new Date() : null,
          lockedUntil: null,
          lastError: null,
          outcome: null,
          invoiceRecordId: null,
          receivedAt: old,
          processedAt,
        });
      const oldDead = row('dead', old);
      const oldProcessed = row('processed', old);
      const recent = row('dead', new Date());
      const pending = row('pending', null);
      for (const r of [oldDead, oldProcessed, recent, pending]) await inbox.insert(r);
      // What is left is checked, not this call's count: the poll's own hourly purge, started with its first round,
      // may take some of the rows first on a busy machine.
      await app.processor.purge();
      const left = (await inbox.findBy({ webhookId: 'purge-test' })).map((r) => r.id).sort();
      expect(left).toEqual([recent.id, pending.id].sort());
    } finally {
      await app.close();
    }
  });
});
