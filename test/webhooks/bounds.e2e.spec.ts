import { randomUUID } from 'node:crypto';
import type { WireInvoiceCurrent } from '../../src/gateway/wire.types';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox.entity';
import { insertInvoiceRecord } from '../core/fixtures';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  waitFor,
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

  it("a forged-token flood from one source delays the service's real delivery by at most one retry", async () => {
    // Confirmed tokens are trusted for 1 ms only: every real delivery is validated again, as after the cache expires.
    const app = await startWebhookApp(db, sandbox, { path: 'flood/hook', tokenCacheTtlMs: 1 });
    try {
      const created = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl });
      const rec = await insertInvoiceRecord(db.dataSource, {
        amountCents: SANDBOX_INVOICE_CENTS,
        gatewayId: created.invoice.id,
        referrer: created.referrer,
      });
      await sandbox.controls.waitForDeliveries(); // the service's token is confirmed once
      const invoice = sandbox.controls.renderInvoice(created.invoice.id) as WireInvoiceCurrent;
      // 200 random tokens from this process (the same loopback address the sandbox sends from).
      const flood = [];
      for (let i = 0; i < 200; i++) {
        flood.push(
          postDelivery(
            app.url,
            '/flood/hook',
            { event: 'invoice.update', delivery_id: randomUUID(), invoice },
            ['default', tokenLine('', `forged-${randomUUID()}`)],
          ).then((r) => r.status),
        );
      }
      const statuses = await Promise.all(flood);
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0); // the budget refused some
      expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);

      await sandbox.controls.pay(created.invoice.id);
      await sandbox.controls.waitForDeliveries();
      const paid = sandbox.deliveries().find((d) => d.invoiceId === created.invoice.id && d.statusCode === 5);
      expect(paid?.state).toBe('delivered');
      expect(paid?.attempts.length).toBeLessThanOrEqual(2);
      await waitFor(
        async () =>
          (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode === 5,
      );
    } finally {
      await app.close();
    }
  });

  it('1,500 deliveries naming 500 invoices this store does not know, with a valid token: about one lookup per invoice, all dead', async () => {
    const app = await startWebhookApp(db, sandbox, {
      path: 'leak/hook',
      inbox: {
        pollIntervalMs: 50,
        retryBaseDelayMs: 50,
        retryMaxDelayMs: 500,
        unknownLookupsPerWindow: 100_000,
        unknownInvoiceWindowMs: 3000,
      },
    });
    try {
      const created = await createSandboxInvoice(app.gateway);
      const template = sandbox.controls.renderInvoice(created.invoice.id) as WireInvoiceCurrent;
      const token = sandbox.controls.webhooks()[0].token;
      // 400 numbers the service does not know either, and 100 invoices it knows (another system's, no record here).
      const foreign = await Promise.all(Array.from({ length: 100 }, () => createSandboxInvoice(app.gateway)));
      const ids = [
        ...Array.from({ length: 400 }, (_, i) => `${900_000_000 + i}-${randomUUID().slice(0, 8)}`),
        ...foreign.map((f) => f.invoice.id),
      ];
      const before = lookups();
      const send = (id: string) =>
        postDelivery(
          app.url,
          '/leak/hook',
          {
            event: 'invoice.update',
            delivery_id: randomUUID(),
            invoice: { ...template, id, referrer: null },
          },
          ['default', tokenLine('', token)],
        );
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < ids.length; i += 50) {
          const answers = await Promise.all(ids.slice(i, i + 50).map(send));
          expect(answers.every((a) => a.status === 200)).toBe(true);
        }
      }
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      await waitFor(
        async () => (await inbox.countBy({ state: 'pending' })) === 0,
        120_000,
        'every delivery settled',
      );
      await app.settle();
      expect(await inbox.countBy({ state: 'dead', webhookId: 'default' })).toBeGreaterThanOrEqual(1500);
      const spent = lookups() - before;
      expect(spent).toBeGreaterThanOrEqual(500);
      expect(spent).toBeLessThanOrEqual(550); // ~one per invoice, not one per delivery (1,500) or per retry
      // One alert for the flood, not one per delivery.
      expect(
        app.alerts.filter((a) => a.message.includes('neither this store nor the service')).length,
      ).toBeLessThanOrEqual(2);
    } finally {
      await app.close();
    }
  }, 300_000);

  it('limits lookups of unknown invoices per window: the rest wait without asking the service', async () => {
    const app = await startWebhookApp(db, sandbox, {
      path: 'limited/hook',
      inbox: { pollIntervalMs: 50, unknownLookupsPerWindow: 5, unknownLookupWindowMs: 600_000 },
    });
    try {
      const created = await createSandboxInvoice(app.gateway);
      const template = sandbox.controls.renderInvoice(created.invoice.id) as WireInvoiceCurrent;
      const token = sandbox.controls.webhooks()[0].token;
      const before = lookups();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          postDelivery(
            app.url,
            '/limited/hook',
            {
              event: 'invoice.update',
              delivery_id: randomUUID(),
              invoice: { ...template, id: `unknown-${randomUUID()}`, referrer: null },
            },
            ['default', tokenLine('', token)],
          ),
        ),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      await app.settle();
      const ids = answers.map((a) => a.body.id as string);
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      const rows = await Promise.all(ids.map((id) => inbox.findOneByOrFail({ id })));
      expect(rows.filter((r) => r.state === 'dead')).toHaveLength(5);
      const waiting = rows.filter((r) => r.state === 'pending');
      expect(waiting).toHaveLength(15);
      for (const row of waiting) expect(row.lastError).toMatch(/limited/);
      expect(lookups() - before).toBe(5);
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
      expect(await app.processor.purge()).toBeGreaterThanOrEqual(2);
      const left = (await inbox.findBy({ webhookId: 'purge-test' })).map((r) => r.id).sort();
      expect(left).toEqual([recent.id, pending.id].sort());
    } finally {
      await app.close();
    }
  });
});
