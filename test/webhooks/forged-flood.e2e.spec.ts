import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { LOOKUP_BURST, MAX_ROWS_PER_LOOKUP } from '../../src/webhooks/invoice-lookup';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  waitFor,
} from './support';
import { resolveWebhooksOptions } from '../../src/options/webhooks.options';

const SANDBOX_INVOICE_CENTS = 2_100;
/** The documented defaults the bounds below are checked against (docs/configuration.md). */
const { lookupWindowMs, lookupsPerSecond } = resolveWebhooksOptions({});
const FLOOD_PER_SECOND = 200;
const FLOOD_SECONDS = 4;
/** Deliveries sent, at {@link FLOOD_PER_SECOND} while the machine keeps up (a busy one sends them more slowly). */
const FLOOD_SIZE = FLOOD_PER_SECOND * FLOOD_SECONDS;

/**
 * A forged flood from the service's own address (loopback, like the sandbox's deliveries): a delivery is a trigger,
 * so the intake spends no call on a token; deliveries naming an invoice this store holds open are answered by one
 * paced lookup of it, those naming nothing it knows are acknowledged without a row or a call.
 */
describeEachDatabase('webhooks: a forged flood beside the genuine delivery', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  /** Every request the sandbox answered, with when. */
  const calls: Array<{ at: number; line: string }> = [];
  const serviceCalls = (from: number, to: number) =>
    calls.filter((c) => c.at >= from && c.at < to && /^(GET \/invoices|OPTIONS \/webhooks)/.test(c.line));

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({
      // A retry window of about 30 s, as a real service's is longer still: a busy machine answers the flood slowly.
      webhookRetry: { attempts: 8, baseDelayMs: 250, factor: 2 },
      log: (line) => calls.push({ at: Date.now(), line }),
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await db.destroy();
  });

  it(`${FLOOD_PER_SECOND} forged deliveries a second: the genuine "paid" is applied, the service called a bounded number of times, one entry joined`, async () => {
    const app = await startWebhookApp(db, sandbox, { path: 'flood/hook' });
    try {
      // The record holds the invoice by number before the flood, as after a checkout's answer. (With the record
      // written by referrer first and the number linked later, SQLite stored 203 rows for 400 deliveries, 51 of them
      // in the last second, against 45-105 and 1 here: the bounds below are for an invoice the store already holds.)
      const created = await createSandboxInvoice(app.gateway, { webhook: app.webhookUrl });
      const rec = await insertInvoiceRecord(db.dataSource, {
        amountCents: SANDBOX_INVOICE_CENTS,
        gatewayId: created.invoice.id,
        referrer: created.referrer,
      });
      await sandbox.controls.waitForDeliveries();
      await app.settle();
      const ours = sandbox.controls.renderInvoice(created.invoice.id) as WireInvoiceCurrent;
      const forged = (i: number) => {
        // Half name random invoices (and referrers), half our real open invoice, each under a random token.
        const invoice =
          i % 2 === 0
            ? { ...ours, id: `${800_000_000 + i}`, referrer: `ref-${randomUUID()}` }
            : { ...ours, status: { ...ours.status, code: 5, text: 'paid' } };
        return postDelivery(
          app.url,
          '/flood/hook',
          { event: 'invoice.update', delivery_id: randomUUID(), invoice },
          ['default', tokenLine('', `forged-${randomUUID()}`)],
        ).then((r) => ({
          ours: i % 2 === 1,
          status: r.status,
          ignored: r.body.ignored as unknown,
          joined: r.body.joined as unknown,
        }));
      };

      const floodStart = Date.now();
      const answers: Array<Promise<{ ours: boolean; status: number; ignored: unknown; joined: unknown }>> =
        [];
      const tickMs = 50;
      const perTick = (FLOOD_PER_SECOND * tickMs) / 1000;
      let sent = 0;
      let paid = false;
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      while (sent < FLOOD_SIZE) {
        for (let k = 0; k < perTick; k++) answers.push(forged(sent++));
        if (!paid && sent >= FLOOD_PER_SECOND) {
          paid = true;
          await sandbox.controls.pay(created.invoice.id); // the genuine delivery goes out during the flood
        }
        const nextTick = floodStart + (sent / perTick) * tickMs;
        await waitFor(() => Date.now() >= nextTick, 5_000, 'the next tick', 5);
      }
      const settled = await Promise.all(answers);

      // Naming nothing this store knows: acknowledged, nothing stored; naming our open invoice: taken as a trigger.
      expect(
        settled.filter((a) => !a.ours).every((a) => a.status === 200 && a.ignored === 'no_open_invoice'),
      ).toBe(true);
      const madeUp = Array.from({ length: sent }, (_, i) => `${800_000_000 + i}`).filter(
        (_, i) => i % 2 === 0,
      );
      expect(await inbox.countBy({ gatewayId: In(madeUp) })).toBe(0);
      expect(settled.filter((a) => a.ours).every((a) => a.status === 200)).toBe(true);

      await sandbox.controls.waitForDeliveries();
      const genuine = sandbox
        .deliveries()
        .find((d) => d.invoiceId === created.invoice.id && d.statusCode === 5);
      // Delivered within the sandbox's retries (how many it takes depends on its timeout and the machine's speed).
      expect(genuine?.state).toBe('delivered');
      await waitFor(
        async () =>
          (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode === 5,
        10_000,
        'the genuine payment applied',
      );
      await app.settle();
      expect(app.port.changes.some((c) => c.invoiceRecordId === rec.id && c.current.code === 5)).toBe(true);

      // No token was sent to the service for validation.
      expect(calls.filter((c) => c.at >= floodStart && c.line.startsWith('OPTIONS /webhooks'))).toHaveLength(
        0,
      );
      // Every forged delivery naming our invoice was answered by a few lookups, none left pending.
      await waitFor(async () => (await inbox.countBy({ state: 'pending' })) === 0, 15_000, 'inbox drained');
      const drained = Date.now();
      // Only our invoice is looked up: the forged ones name nothing this store knows.
      const lookups = calls.filter((c) => c.at >= floodStart && c.line.startsWith('GET /invoices ')).length;
      const perSecond: number[] = [];
      for (let s = floodStart; s < drained; s += 1000) perSecond.push(serviceCalls(s, s + 1000).length);
      const rows = await inbox.countBy({ gatewayId: created.invoice.id });
      const namingOurs = settled.filter((a) => a.ours);
      const joined = namingOurs.filter((a) => a.joined === true).length;
      console.log(
        `[${kind}] genuine delivery attempts: ${genuine?.attempts.map((a) => a.status).join(', ')}; ` +
          `service calls per second from the flood until drained: ${perSecond.join(', ')}; ` +
          `${namingOurs.length} deliveries naming our invoice: ${rows} inbox rows, ${joined} joined`,
      );
      expect(lookups).toBeGreaterThan(0);
      expect(Math.max(...perSecond)).toBeLessThanOrEqual(lookupsPerSecond);
      // One invoice was named: after its burst, one lookup a window, however many deliveries named it. (Counted over
      // the whole time, not per second: a lookup the pacer let start at the end of one second may reach a busy
      // sandbox in the next.)
      expect(lookups).toBeLessThanOrEqual(LOOKUP_BURST + Math.ceil((drained - floodStart) / lookupWindowMs));
      // Between two lookups of the invoice its deliveries add at most MAX_ROWS_PER_LOOKUP rows, then join one entry
      // (the one waiting for its next turn), however fast they come and however slowly the database stores them.
      expect(joined).toBeGreaterThan(0);
      expect(rows).toBeLessThanOrEqual((lookups + 1) * (MAX_ROWS_PER_LOOKUP + 1));
    } finally {
      await app.close();
    }
  }, 120_000);

  it('a delivery naming nothing this store knows is acknowledged without storing it or any call to the service', async () => {
    const app = await startWebhookApp(db, sandbox, { path: 'unknown/hook' });
    try {
      const created = await createSandboxInvoice(app.gateway); // the service knows it; this store has no record
      const invoice = sandbox.controls.renderInvoice(created.invoice.id) as WireInvoiceCurrent;
      const token = sandbox.controls.webhooks()[0].token; // even with the service's own token
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      const storedBefore = await inbox.count();
      const before = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postDelivery(
            app.url,
            '/unknown/hook',
            {
              event: 'invoice.update',
              delivery_id: randomUUID(),
              invoice: i === 0 ? invoice : { ...invoice, id: `${700_000_000 + i}`, referrer: `ref-${i}` },
            },
            ['default', tokenLine('', i % 2 ? token : `forged-${i}`)],
          ),
        ),
      );
      expect(answers.map((a) => [a.status, a.body.ignored])).toEqual(
        Array(20).fill([200, 'no_open_invoice']),
      );
      expect(String(answers[0].body.message)).toContain(created.invoice.id);
      await app.settle();
      expect(serviceCalls(before, Date.now() + 1)).toHaveLength(0);
      expect(await inbox.count()).toBe(storedBefore);
    } finally {
      await app.close();
    }
  });
});
