import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { statusStage, STATUS_STAGES, decideTransition } from '../../src/core/status-transitions';
import type { WireInvoiceCurrent } from '../../src/gateway/wire.types';
import { InvoiceStatusHistory } from '../../src/persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox.entity';
import { insertInvoiceRecord } from '../core/fixtures';
import { databaseKinds, describeEachDatabase, TestDatabase } from '../support/databases';
import {
  createSandboxInvoice,
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  WebhookApp,
} from './support';

/**
 * These tests drive the inbox's own mechanics (claims, leases, order, crash recovery) with synthetic deliveries of
 * invoices the service never issued, so confirmation with the service is off here; `confirmation.e2e.spec.ts`
 * covers it.
 */
const startInboxApp = (...[db, sandbox, options]: Parameters<typeof startWebhookApp>) =>
  startWebhookApp(db, sandbox, { confirmWithService: false, ...options });

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
  template: WireInvoiceCurrent;
  token: string;
}

function delivery(ctx: Ctx, gatewayId: string, code: number, deliveryId = randomUUID()) {
  return {
    event: 'invoice.update',
    delivery_id: deliveryId,
    webhook: 'default',
    sent_at: '2026-11-21 10:00:00',
    invoice: {
      ...ctx.template,
      id: gatewayId,
      // A synthetic invoice: it names no referrer, so it can only belong to the record of its number.
      referrer: null,
      status: { ...ctx.template.status, code, text: `code ${code}` },
    },
  };
}

function send(ctx: Ctx, body: unknown) {
  return postDelivery(ctx.app.url, '/webhooks/invoice-payments', body, [tokenLine('', ctx.token), 'default']);
}

async function setup(db: TestDatabase, sandbox: SandboxServer): Promise<Ctx> {
  const app = await startInboxApp(db, sandbox);
  const created = await createSandboxInvoice(app.gateway);
  return {
    app,
    template: sandbox.controls.renderInvoice(created.invoice.id)!,
    token: sandbox.controls.webhooks()[0].token,
  };
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
    const recs = await Promise.all(
      Array.from({ length: 10 }, () =>
        insertInvoiceRecord(db.dataSource, { amountCents: 2_100, gatewayId: `gw-${randomUUID()}` }),
      ),
    );
    // Like the service: one delivery at a time per invoice, the next sent once the previous was answered.
    await Promise.all(
      recs.map(async (rec) => {
        for (const code of life)
          expect((await send(ctx, delivery(ctx, rec.gatewayId!, code))).status).toBe(200);
      }),
    );
    await ctx.app.settle();
    for (const rec of recs) {
      expect(
        ctx.app.port.changes.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code),
      ).toEqual(life);
    }
  });

  it('refuses a delivery that wins the race against the checkout, and applies its retry once the record exists', async () => {
    const slow = await startInboxApp(db, sandbox, { path: 'slow/hook' });
    try {
      const gatewayId = `gw-${randomUUID()}`;
      const post = (code: number) =>
        postDelivery(slow.url, '/slow/hook', delivery(ctx, gatewayId, code), [
          'default',
          tokenLine('', ctx.token),
        ]);
      const inbox = db.dataSource.getRepository(WebhookInboxEntry);
      const before = await inbox.count();
      expect((await post(2)).status).toBe(422); // no record names it yet: the service retries
      expect(await inbox.count()).toBe(before);

      const rec = await insertInvoiceRecord(db.dataSource, { amountCents: 2_100, gatewayId });
      expect((await post(2)).status).toBe(200);
      await slow.settle();
      expect((await post(5)).status).toBe(200);
      await slow.settle();
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
          const rec = await insertInvoiceRecord(db.dataSource, {
            amountCents: 2_100,
            gatewayId: `gw-${randomUUID()}`,
          });
          for (const code of shuffled) {
            const res = await send(ctx, delivery(ctx, rec.gatewayId!, code));
            expect(res.status).toBe(200);
          }
          await ctx.app.settle();
          const final = seq[seq.length - 1];
          expect(
            (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode,
          ).toBe(final);
          const told = ctx.app.port.changes
            .filter((c) => c.invoiceRecordId === rec.id)
            .map((c) => c.current.code);
          expect(told[told.length - 1]).toBe(final);
          const stages = told.map((c) => statusStage(c)!);
          expect(stages).toEqual([...stages].sort((a, b) => a - b));
          expect(new Set(told).size).toBe(told.length);
          expect(
            await db.dataSource.getRepository(InvoiceStatusHistory).countBy({ invoiceRecordId: rec.id }),
          ).toBe(seq.length);
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

  it('stores, applies and notifies each of them exactly once', async () => {
    const life = [1, 2, 4, 5, 8, 9];
    const recs = await Promise.all(
      Array.from({ length: 50 }, () =>
        insertInvoiceRecord(db.dataSource, { amountCents: 2_100, gatewayId: `gw-${randomUUID()}` }),
      ),
    );
    // Per invoice: its six reports plus four resends of some of them (same delivery_id): 50 × 10 = 500.
    const bodies = recs.flatMap((rec) => {
      const distinct = life.map((code) => delivery(ctx, rec.gatewayId!, code));
      return [...distinct, distinct[0], distinct[3], distinct[5], distinct[5]];
    });
    bodies.sort(() => Math.random() - 0.5);
    const responses = await Promise.all(bodies.map((b) => send(ctx, b)));
    expect(responses.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(responses.filter((r) => r.body.duplicate === false)).toHaveLength(300);

    await ctx.app.settle();
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    expect(await inbox.count()).toBe(300);
    expect(await inbox.countBy({ state: 'processed' })).toBe(300);
    const history = db.dataSource.getRepository(InvoiceStatusHistory);
    expect(await history.count()).toBe(300);
    const applied = await history.countBy({ applied: true });
    const told = ctx.app.port.changes;
    expect(told).toHaveLength(applied);
    expect(new Set(told.map((c) => `${c.invoiceRecordId}:${c.current.code}`)).size).toBe(applied);
    expect(ctx.app.busChanges).toHaveLength(applied);
    for (const rec of recs) {
      expect(
        (await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: rec.id })).statusCode,
      ).toBe(9);
      const codes = told.filter((c) => c.invoiceRecordId === rec.id).map((c) => c.current.code);
      expect(codes.map((c) => life.indexOf(c))).toEqual(
        [...codes.map((c) => life.indexOf(c))].sort((a, b) => a - b),
      );
      expect(codes.at(-1)).toBe(9);
    }
  });
});
