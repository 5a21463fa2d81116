import { randomUUID } from 'node:crypto';
import type { WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import type { SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { LookupPacer } from '../../src/webhooks/invoice-lookup';
import { DeliveryIntake } from '../../src/webhooks/delivery-intake';
import { Coalescer } from '../../src/core/queue/poller';
import type { WebhookDelivery } from '../../src/gateway/webhook.reader';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  closeDeliveryScene,
  openDeliveryScene,
  postDelivery,
  tokenLine,
  waitFor,
  WebhookApp,
} from './support';

/** Deliveries that arrive together are stored together: fewer inserts, the same answers, nothing lost. */
describeEachDatabase('webhooks: group commit of the inbox', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  let invoice: WireInvoiceCurrent;
  let serviceToken: string;

  beforeAll(async () => {
    ({ db, sandbox, app, invoice, serviceToken } = await openDeliveryScene(kind));
  });
  afterAll(() => closeDeliveryScene({ db, sandbox, app }));

  const inbox = () => db.dataSource.getRepository(WebhookInboxEntry);
  const post = (deliveryId: string) =>
    postDelivery(
      app.url,
      '/webhooks/invoice-payments',
      { event: 'invoice.update', delivery_id: deliveryId, invoice },
      ['default', tokenLine('', serviceToken)],
    );
  /** The inbox INSERTs the app sends while `work` runs. */
  async function insertsDuring(work: () => Promise<unknown>): Promise<number> {
    const logger = db.dataSource.logger;
    const spy = jest.spyOn(logger, 'logQuery');
    try {
      await work();
      return spy.mock.calls.filter(([sql]) =>
        /^INSERT (OR IGNORE )?INTO "invoice_payments_webhook_inbox"/.test(sql),
      ).length;
    } finally {
      spy.mockRestore();
    }
  }

  it('stores 40 deliveries arriving at once in fewer inserts, each answered with its own committed row', async () => {
    // The token is cached first, so the deliveries reach the inbox together.
    expect((await post(randomUUID())).status).toBe(200);
    const ids = Array.from({ length: 40 }, () => randomUUID());
    const submitted = jest.spyOn(Coalescer.prototype, 'submit');
    const ours = () =>
      submitted.mock.calls.filter(([item]) =>
        (ids as string[]).includes((item as WebhookInboxEntry).deliveryId ?? ''),
      );
    // On PostgreSQL the table is held, so the first insert waits while the other 39 arrive, however slow the machine;
    // better-sqlite3 answers within the tick, so on SQLite nothing waits for a batch.
    const holder = kind === 'postgres' ? await holdInbox() : null;
    let answers: Array<{ status: number; body: { id: string; duplicate: boolean } }> = [];
    const inserts = await insertsDuring(async () => {
      const posted = Promise.all(ids.map((id) => post(id)));
      if (holder) {
        await waitFor(() => ours().length === 40, 30_000, 'all 40 deliveries handed to the inbox writer');
        await holder.release();
      }
      answers = await posted;
    });
    submitted.mockRestore();
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(answers.every((a) => a.body.duplicate === false)).toBe(true);
    // The first goes alone; the 39 that arrived while it waited go together.
    if (kind === 'postgres') expect(inserts).toBe(2);
    else expect(inserts).toBeLessThanOrEqual(40);
    const stored = await inbox().findBy(ids.map((id) => ({ deliveryId: id })));
    expect(stored.map((s) => s.deliveryId).sort()).toEqual([...ids].sort());
    expect(new Set(answers.map((a) => a.body.id))).toEqual(new Set(stored.map((s) => s.id)));
    await app.settle();
  });

  /** Holds the inbox table against inserts (reads go on) until `release`. */
  async function holdInbox(): Promise<{ release: () => Promise<void> }> {
    const runner = db.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query('LOCK TABLE invoice_payments_webhook_inbox IN EXCLUSIVE MODE');
    return {
      release: async () => {
        await runner.commitTransaction();
        await runner.release();
      },
    };
  }

  it('answers copies of one delivery in the same batch from its one row', async () => {
    // Outside the invoice's lookup window (the previous test looked it up): otherwise every delivery of the burst,
    // copies included, would join the entry put off until the next lookup instead of being stored.
    const pacer = app.app.get(LookupPacer);
    await waitFor(
      () => pacer.dueAt(invoice.id) === null && pacer.joinable(invoice.id) === null,
      10_000,
      'the lookup window passed',
    );
    const id = randomUUID();
    const others = Array.from({ length: 5 }, () => randomUUID());
    const answers = await Promise.all([...others, id, id, id, id].map((d) => post(d)));
    expect(answers.map((a) => a.status)).toEqual(Array(9).fill(200));
    const copies = answers.slice(5);
    expect(copies.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    expect(new Set(copies.map((a) => a.body.id)).size).toBe(1);
    expect(await inbox().countBy({ deliveryId: id })).toBe(1);
    await app.settle();
  });

  if (kind === 'postgres') {
    it('a row the database refuses fails its own delivery only, not the ones written with it', async () => {
      const service = app.app.get(DeliveryIntake);
      // Test deliveries (no invoice): stored `ignored`, nothing to process.
      const delivery = (deliveryId: string, event: string): WebhookDelivery => ({
        dedupeKey: `delivery:${deliveryId}`,
        deliveryId,
        event,
        webhookId: 'default',
        sentAt: null,
        test: true,
        invoice: null,
        invoiceError: null,
        payload: null,
      });
      const good = Array.from({ length: 6 }, () => randomUUID());
      const bad = randomUUID();
      // PostgreSQL refuses a NUL character in text; the intake never lets one through, this goes around it.
      const results = await Promise.allSettled([
        ...good.map((d) => service.store(delivery(d, 'invoice.update'), null)),
        service.store(delivery(bad, 'invoice\u0000update'), null),
      ]);
      expect(results.slice(0, 6).map((r) => r.status)).toEqual(Array(6).fill('fulfilled'));
      expect(results[6].status).toBe('rejected');
      expect(await inbox().countBy(good.map((d) => ({ deliveryId: d })))).toBe(6);
      expect(await inbox().countBy({ deliveryId: bad })).toBe(0);
    });
  }
});
