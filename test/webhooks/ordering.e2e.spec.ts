import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { statusRow, STATUS_STAGES } from '../../src/domain/status-table';
import { decideTransition } from '../../src/core/status-report';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { insertInvoiceRecord } from '../core/fixtures';
import { databaseKinds, describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

/**
 * These tests drive the inbox's own mechanics (claims, leases, order) with deliveries of sandbox invoices: the
 * service is moved to each status first, then tells the store, so what the confirmation reads is that status (a
 * lookup window of 1 ms lets every step have its own lookup).
 */
const startInboxApp = (...[db, sandbox, options]: Parameters<typeof startWebhookApp>) =>
  startWebhookApp(db, sandbox, { lookupWindowMs: 1, ...options });

/** A legal life of an invoice: each next code one the transition table lets the previous one move to. */
const legalSequence = fc
  .tuple(fc.constantFrom(...STATUS_STAGES), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }))
  .map(([first, picks]) => {
    const seq: number[] = [first];
    for (const pick of picks) {
      const next = STATUS_STAGES.filter((c) => decideTransition(seq[seq.length - 1], c).apply);
      if (next.length === 0) break;
      seq.push(next[pick % next.length]);
    }
    return seq;
  });

interface Ctx {
  app: WebhookApp;
  sandbox: SandboxServer;
  db: TestDatabase;
  token: string;
}

/** The delivery the service sends for the invoice as it stands now (each with its own `delivery_id`). */
function delivery(ctx: Ctx, gatewayId: string, deliveryId = randomUUID()) {
  return {
    event: 'invoice.update',
    delivery_id: deliveryId,
    webhook: 'default',
    sent_at: '2026-11-21 10:00:00',
    invoice: ctx.sandbox.controls.renderInvoice(gatewayId)!,
  };
}

function send(ctx: Ctx, body: unknown, app: WebhookApp = ctx.app, path = '/webhooks/invoice-payments') {
  return postDelivery(app.url, path, body, [tokenLine('', ctx.token), 'default']);
}

/** A sandbox invoice (no webhook of its own: the tests send its deliveries) and, unless `unrecorded`, its record. */
async function openInvoice(
  ctx: Ctx,
  unrecorded = false,
): Promise<{ gatewayId: string; rec: InvoiceRecord | null }> {
  const { invoice, referrer } = await createSandboxInvoice(ctx.app.gateway);
  const rec = unrecorded
    ? null
    : await insertInvoiceRecord(ctx.db.dataSource, { amountCents: 2_100, gatewayId: invoice.id, referrer });
  return { gatewayId: invoice.id, rec };
}

/**
 * The service moves the invoice to `code` and tells the store, which has processed it when this resolves: `true`,
 * or acknowledged it unstored (`false`: the store holds the invoice closed, refunded, so nothing can move it).
 */
async function step(ctx: Ctx, gatewayId: string, code: number): Promise<boolean> {
  await ctx.sandbox.controls.setStatus(gatewayId, code);
  const res = await send(ctx, delivery(ctx, gatewayId));
  expect(res.status).toBe(200);
  if (res.body.ignored === 'no_open_invoice') return false;
  const inbox = ctx.db.dataSource.getRepository(WebhookInboxEntry);
  await waitFor(async () => (await inbox.findOneByOrFail({ id: res.body.id })).state !== 'pending');
  return true;
}

async function setup(db: TestDatabase, sandbox: SandboxServer): Promise<Ctx> {
  const app = await startInboxApp(db, sandbox);
  return { app, sandbox, db, token: sandbox.controls.webhooks()[0].token };
}

describeEachDatabase('webhooks: out-of-order deliveries over HTTP', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let ctx: Ctx;

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox();
    ctx = await setup(db, sandbox);
  });
  afterAll(async () => {
    await ctx.app.close();
    await sandbox.close();
    await db.destroy();
  });

  it('applies every step of deliveries that arrive in order, one invoice after another in parallel', async () => {
    const life = [1, 15, 2, 3, 4, 5, 7, 8, 10, 9];
    const invoices = await Promise.all(Array.from({ length: 10 }, () => openInvoice(ctx)));
    // Like the service: one delivery at a time per invoice, the next once the previous was taken in.
    await Promise.all(
      invoices.map(async ({ gatewayId }) => {
        for (const code of life) await step(ctx, gatewayId, code);
      }),
    );
    await ctx.app.settle();
    for (const { rec } of invoices) {
      expect(
        ctx.app.port.changes.filter((c) => c.invoiceRecordId === rec!.id).map((c) => c.current.code),
      ).toEqual(life);
    }
  });

  it('acknowledges a delivery naming no record, storing nothing; with the record by referrer (no number yet) it is applied', async () => {
    const slow = await startInboxApp(db, sandbox, { path: 'slow/hook' });
    try {
      const { gatewayId } = await openInvoice(ctx, true);
      await sandbox.controls.setStatus(gatewayId, 2);
      const post = () => send(ctx, delivery(ctx, gatewayId), slow, '/slow/hook');
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      // No record names it, by number or referrer: not the store's (the checkout writes its record first).
      const stray = await post();
      expect([stray.status, stray.body.ignored]).toEqual([200, 'no_open_invoice']);
      expect(await inbox.countBy({ gatewayId })).toBe(0);

      // The checkout's record, written before it asked for the invoice: found by referrer, linked by the delivery.
      const rendered = sandbox.controls.renderInvoice(gatewayId)!;
      const rec = await insertInvoiceRecord(db.dataSource, {
        orderId: rendered.referrer!, // the payment id `createSandboxInvoice` sends
        amountCents: 2_100,
        gatewayId: null,
        creationState: 'pending', // as the checkout writes it before asking
        referrer: rendered.referrer!,
      });
      // Both apps poll this database: whichever takes the entry, it is processed before the service moves on.
      const taken = async () => {
        const res = await post();
        expect(res.status).toBe(200);
        await waitFor(async () => (await inbox.findOneByOrFail({ id: res.body.id })).state !== 'pending');
      };
      await taken();
      await sandbox.controls.setStatus(gatewayId, 5);
      await taken();
      await Promise.all([slow.settle(), ctx.app.settle()]);
      const history = await db.dataSource
        .getRepository(InvoiceStatusHistory)
        .find({ where: { invoiceRecordId: rec.id }, order: { createdAt: 'ASC' } });
      expect(history.map((h) => [h.toCode, h.applied])).toEqual([
        [2, true],
        [5, true],
      ]);
    } finally {
      await slow.close();
    }
  });

  it('property: any shuffled order of a legal sequence ends in the furthest legal state, told in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        legalSequence.chain((seq) =>
          fc.tuple(fc.constant(seq), fc.shuffledSubarray(seq, { minLength: seq.length })),
        ),
        async ([seq, shuffled]) => {
          const { gatewayId, rec: opened } = await openInvoice(ctx);
          const rec = opened!;
          const taken: boolean[] = [];
          for (const code of shuffled) taken.push(await step(ctx, gatewayId, code));
          await ctx.app.settle();
          // Only a delivery after the record closed (refunded) may be acknowledged unstored.
          const closedAt = shuffled.indexOf(9);
          expect(taken.every((t, i) => t || (closedAt >= 0 && i > closedAt))).toBe(true);
          const final = seq[seq.length - 1];
          expect(
            (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode,
          ).toBe(final);
          const told = ctx.app.port.changes
            .filter((c) => c.invoiceRecordId === rec.id)
            .map((c) => c.current.code);
          expect(told[told.length - 1]).toBe(final);
          const stages = told.map((c) => statusRow(c)!.stage);
          expect(stages).toEqual([...stages].sort((a, b) => a - b));
          expect(new Set(told).size).toBe(told.length);
          expect(
            await db.dataSource.getRepository(InvoiceStatusHistory).countBy({ invoiceRecordId: rec.id }),
          ).toBe(taken.filter(Boolean).length);
        },
      ),
      { numRuns: 25 },
    );
  });
});

// 500 deliveries at once: nothing lost, nothing doubled. PostgreSQL is the multi-connection setup this is about.
const describeOnPostgres = databaseKinds().includes('postgres') ? describe : () => undefined;

describeOnPostgres('webhooks: 500 concurrent deliveries [postgres]', () => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let ctx: Ctx;

  beforeAll(async () => {
    db = await openWebhooksDatabase('postgres', 30);
    sandbox = await startSandbox();
    ctx = await setup(db, sandbox);
  });
  afterAll(async () => {
    await ctx.app.close();
    await sandbox.close();
    await db.destroy();
  });

  // 22 s alone; a busy machine takes it past the default 30 s.
  it('stores, applies and notifies each of them exactly once', async () => {
    const life = [1, 2, 4, 5, 8, 9];
    const invoices = await Promise.all(Array.from({ length: 50 }, () => openInvoice(ctx)));
    // The service went through each invoice's whole life before its deliveries reached the store, shuffled.
    await Promise.all(
      invoices.map(async ({ gatewayId }) => {
        for (const code of life) await sandbox.controls.setStatus(gatewayId, code);
      }),
    );
    // Per invoice: its six reports plus four resends of some of them (same delivery_id): 50 × 10 = 500.
    const bodies = invoices.flatMap(({ gatewayId }) => {
      const distinct = life.map((code) => {
        const body = delivery(ctx, gatewayId);
        return { ...body, invoice: { ...body.invoice, status: { ...body.invoice.status, code } } };
      });
      return [...distinct, distinct[0], distinct[3], distinct[5], distinct[5]];
    });
    bodies.sort(() => Math.random() - 0.5);
    const responses = await Promise.all(bodies.map((b) => send(ctx, b)));
    expect(responses.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    // Stored (or a copy of a stored one), or, once its invoice closed here (9), acknowledged unstored.
    const ignored = responses.filter((r) => r.body.ignored === 'no_open_invoice');
    const stored = responses.filter((r) => r.body.duplicate === false && !r.body.joined);
    expect(ignored.length + responses.filter((r) => r.body.duplicate !== undefined).length).toBe(500);
    expect(stored.length).toBeGreaterThanOrEqual(50);
    expect(stored.length).toBeLessThanOrEqual(300);

    await ctx.app.settle();
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    expect(await inbox.count()).toBe(stored.length);
    expect(await inbox.countBy({ state: 'processed' })).toBe(stored.length);
    // However many deliveries, each invoice moved once: to what the service says (9), told once.
    const history = db.dataSource.getRepository(InvoiceStatusHistory);
    const applied = await history.countBy({ applied: true });
    expect(applied).toBe(50);
    const told = ctx.app.port.changes;
    expect(told).toHaveLength(applied);
    expect(new Set(told.map((c) => `${c.invoiceRecordId}:${c.current.code}`)).size).toBe(applied);
    expect(ctx.app.busChanges).toHaveLength(applied);
    for (const { rec } of invoices) {
      expect(
        (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec!.id })).statusCode,
      ).toBe(9);
      expect(told.filter((c) => c.invoiceRecordId === rec!.id).map((c) => c.current.code)).toEqual([9]);
    }
  }, 90_000);
});
