import { randomUUID } from 'node:crypto';
import { Not } from 'typeorm';
import { CLOCK } from '../../src/domain/clock';
import { acquireLease, releaseLease } from '../../src/persistence/named-lease';
import { InvoicePaymentsModule, InvoiceRecord, InvoiceStatusHistory } from '../../src/index';
import { NEVER } from '../../src/persistence/invoice.entity';
import { OpenInvoicesReconciler } from '../../src/reconciliation/open-invoices.reconciler';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { HostApp, RecordingOrderPort, SANDBOX_TOKEN, startHostApp, waitFor } from '../support/app';
import { ManualClock } from '../support/clock';
import { startCountingProxy, type CountingProxy } from '../support/counting-proxy';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { InvoicePaymentProvider, ORDER_PAYMENT_PORT } from '../../src/index';

/**
 * The reconciliation of open invoices with the module's DEFAULT settings (only the gateway and the port given): a
 * payment made while the store was down, whose webhooks all failed, reaches the order after a restart.
 */
describeEachDatabase('reconciliation of open invoices (default settings)', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let proxy: CountingProxy;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    // The service tries each webhook once: a store that is down misses it for good.
    sandbox = await startSandbox({ webhookRetry: { attempts: 1, baseDelayMs: 10 } });
    proxy = await startCountingProxy(sandbox.url);
  });
  afterAll(async () => {
    await proxy.close();
    await sandbox.close();
    await db.destroy();
  });

  /** The store with default settings; `clock`, when given, is the module's clock (else the system clock). */
  const startStore = (clock?: ManualClock): Promise<HostApp> =>
    startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: { baseUrl: proxy.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' },
          orderPort: RecordingOrderPort,
        }),
      ],
      { listen: true, overrides: clock ? [[CLOCK, clock]] : [] },
    );
  const lookups = () => proxy.count((m, p) => m === 'GET' && p.endsWith('/invoices'));

  it('settles a PIX paid while the store was down once it starts again; the port hears it', async () => {
    const first = await startStore();
    const order = makeOrder();
    const session = await first.app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
    const recordId = session.data.invoiceRecordId;
    await first.close(); // the store goes down

    const record = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: recordId });
    expect(record.statusCode).toBe(1);
    await sandbox.controls.pay(record.gatewayId as string);
    await sandbox.controls.waitForDeliveries();
    expect(
      sandbox
        .deliveries()
        .filter((d) => d.invoiceId === record.gatewayId && d.statusCode === 5 && d.state === 'delivered'),
    ).toHaveLength(0);

    const before = lookups();
    const second = await startStore();
    try {
      const port = second.app.get<RecordingOrderPort>(ORDER_PAYMENT_PORT);
      await waitFor(
        () => port.changes.some((c) => c.invoiceRecordId === recordId && c.current.code === 5),
        15_000,
        'the port told of the payment',
      );
      const paid = port.changes.find((c) => c.invoiceRecordId === recordId && c.current.code === 5);
      expect(paid).toMatchObject({ source: 'sweep', current: { orderPaymentStatus: 'captured' } });
      const history = await db.dataSource
        .getRepository(InvoiceStatusHistory)
        .findBy({ invoiceRecordId: recordId, toCode: 5 });
      expect(history).toHaveLength(1);
      // One lookup found it; the record is then off the schedule (paid is final).
      expect(lookups() - before).toBeGreaterThanOrEqual(1);
      // The round takes it off the schedule after applying it: the port may hear of it first.
      const offSchedule = async () =>
        (
          await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: recordId })
        ).nextCheckAt?.toISOString() === NEVER.toISOString();
      await waitFor(offSchedule, 5_000, 'the record off the schedule');
      expect(await offSchedule()).toBe(true);
      // A further round asks the service nothing about it.
      const settled = lookups();
      await second.app.get(OpenInvoicesReconciler).runOnce();
      expect(lookups()).toBe(settled);
    } finally {
      await second.close();
    }
  });

  it('looks up an open invoice once the clock reaches its check, and only due ones (cost follows open invoices)', async () => {
    const clock = new ManualClock();
    const app = await startStore(clock);
    try {
      const provider = app.app.get(InvoicePaymentProvider);
      const reconciler = app.app.get(OpenInvoicesReconciler);
      const first = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
      clock.advance(10_000); // the two others are younger: their checks fall due later
      const others = await Promise.all(
        [1, 2].map(() => provider.initiatePayment(checkout(makeOrder(), 'pix'))),
      );
      const repo = db.dataSource.getRepository(InvoiceRecord);
      await reconciler.runOnce(); // new records are only scheduled (younger than the first step)
      const ids = [first, ...others].map((s) => s.data.invoiceRecordId);
      for (const id of ids) expect((await repo.findOneByOrFail({ id })).nextCheckAt).not.toBeNull();
      // Paid while its webhook is dropped; its first check falls due when the clock reaches it.
      const due = await repo.findOneByOrFail({ id: ids[0] });
      sandbox.controls.setWebhookFaults({ drop: 1 });
      await sandbox.controls.pay(due.gatewayId as string);
      await sandbox.controls.waitForDeliveries();
      sandbox.controls.clearFaults();
      const idle = await reconciler.runOnce();
      expect(idle).toMatchObject({ leader: true, checked: 0 }); // not due yet: nothing asked
      clock.set(due.nextCheckAt!);
      const before = lookups();
      const round = await reconciler.runOnce();
      expect(round).toMatchObject({ leader: true, checked: 1, applied: 1 });
      expect(lookups() - before).toBe(1);
      expect((await repo.findOneByOrFail({ id: due.id })).statusCode).toBe(5);
      // The two others were not due: not looked up.
      for (const id of ids.slice(1)) expect((await repo.findOneByOrFail({ id })).statusCode).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('asks the service at most maxCallsPerMinute times a minute, however many are due', async () => {
    const app = await startHostApp(db, [
      InvoicePaymentsModule.forRoot({
        gateway: { baseUrl: proxy.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' },
        reconciliation: { intervalMs: 0, maxCallsPerMinute: 2 },
      }),
    ]);
    try {
      const provider = app.app.get(InvoicePaymentProvider);
      const sessions = await Promise.all(
        [1, 2, 3, 4, 5].map(() => provider.initiatePayment(checkout(makeOrder(), 'pix'))),
      );
      const repo = db.dataSource.getRepository(InvoiceRecord);
      for (const s of sessions)
        await repo.update({ id: s.data.invoiceRecordId }, { nextCheckAt: new Date(Date.now() - 1000) });
      const before = lookups();
      const round = await app.app.get(OpenInvoicesReconciler).runOnce();
      expect(round.checked).toBe(2);
      expect(lookups() - before).toBe(2);
      const again = await app.app.get(OpenInvoicesReconciler).runOnce();
      expect(again.checked).toBe(0); // the minute's calls are spent; the others stay due
      expect(lookups() - before).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('settles a creation being confirmed (outcome unknown) by asking the service by referrer', async () => {
    const app = await startHostApp(db, [
      InvoicePaymentsModule.forRoot({
        gateway: { baseUrl: proxy.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' },
        reconciliation: { intervalMs: 0 },
        orderPort: RecordingOrderPort,
      }),
    ]);
    try {
      const session = await app.app.get(InvoicePaymentProvider).initiatePayment(checkout(makeOrder(), 'pix'));
      const repo = db.dataSource.getRepository(InvoiceRecord);
      const created = await repo.findOneByOrFail({ id: session.data.invoiceRecordId });
      // As if the create request's answer had been lost: the row knows no invoice number yet.
      await repo.update(
        { id: created.id },
        {
          creationState: 'unknown',
          gatewayId: null,
          statusCode: null,
          unknownSince: new Date(Date.now() - 600_000),
          settlesAt: new Date(Date.now() - 1000),
          nextCheckAt: new Date(Date.now() - 1000),
        },
      );
      await sandbox.controls.pay(created.gatewayId as string);
      // Earlier tests' records are not due now: this round is about this one.
      await repo.update({ id: Not(created.id) }, { nextCheckAt: NEVER });
      const round = await app.app.get(OpenInvoicesReconciler).runOnce();
      expect(round).toMatchObject({ checked: 1, errors: 0 });
      const settled = await repo.findOneByOrFail({ id: created.id });
      expect(settled).toMatchObject({
        creationState: 'created',
        gatewayId: created.gatewayId,
        statusCode: 5,
      });
    } finally {
      await app.close();
    }
  });
});

describeEachDatabase('the reconciliation lease', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => (db = await openCheckoutDatabase(kind)));
  afterAll(async () => db.destroy());

  it('is held by one instance at a time; renewed by its holder; taken over once released or lapsed', async () => {
    const name = `lease-${randomUUID()}`;
    const [a, b] = ['instance-a', 'instance-b'];
    const both = await Promise.all([
      acquireLease(db.dataSource, name, a, 60_000, Date.now()),
      acquireLease(db.dataSource, name, b, 60_000, Date.now()),
    ]);
    expect(both.filter(Boolean)).toHaveLength(1);
    const holder = both[0] ? a : b;
    const other = holder === a ? b : a;
    expect(await acquireLease(db.dataSource, name, holder, 60_000, Date.now())).toBe(true);
    expect(await acquireLease(db.dataSource, name, other, 60_000, Date.now())).toBe(false);
    await releaseLease(db.dataSource, name, holder);
    expect(await acquireLease(db.dataSource, name, other, 60_000, Date.now())).toBe(true);
    expect(await acquireLease(db.dataSource, name, holder, 60_000, Date.now())).toBe(false);
    // The holder crashes: its lease lapses.
    await db.dataSource.query(
      `UPDATE invoice_payments_lease SET locked_until = '2000-01-01T00:00:00.000Z' WHERE name = ${
        kind === 'postgres' ? '$1' : '?'
      }`,
      [name],
    );
    expect(await acquireLease(db.dataSource, name, holder, 60_000, Date.now())).toBe(true);
  });

  it('two store instances on one database: only one runs a round', async () => {
    const sandbox = await startSandbox();
    const start = () =>
      startHostApp(db, [
        InvoicePaymentsModule.forRoot({
          gateway: { baseUrl: sandbox.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' },
          reconciliation: { intervalMs: 0 },
        }),
      ]);
    const [one, two] = [await start(), await start()];
    try {
      const rounds = await Promise.all([
        one.app.get(OpenInvoicesReconciler).runOnce(),
        two.app.get(OpenInvoicesReconciler).runOnce(),
      ]);
      expect(rounds.filter((r) => r.leader)).toHaveLength(1);
    } finally {
      await one.close();
      await two.close();
      await sandbox.close();
    }
  });
});

/**
 * A record the reconciliation took off its schedule (found final, or its window ended) comes back on it when a status
 * it watches is applied or its due date moves, in the same write, its window counting from then; one whose applied
 * status is not watched stays off. Each scene loses the webhook of the change that follows, so only the
 * reconciliation can bring the record to what the service holds.
 */
describeEachDatabase('reconciliation: a record back on the schedule', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ webhookRetry: { attempts: 1, baseDelayMs: 10 } });
  });
  afterAll(async () => {
    await sandbox.close();
    await db.destroy();
  });

  const DAY = 86_400_000;
  /** The module on a clock the test moves; no round runs on its own. */
  const startStore = (clock: ManualClock) =>
    startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: { baseUrl: sandbox.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' },
          reconciliation: { intervalMs: 0 },
        }),
      ],
      { overrides: [[CLOCK, clock]] },
    );
  const repo = () => db.dataSource.getRepository(InvoiceRecord);
  const isNever = (date: Date | null) => date?.toISOString() === NEVER.toISOString();
  /** A bank slip of a new order, the only record due: earlier tests' records are off the schedule. */
  const newSlip = async (provider: InvoicePaymentProvider) => {
    const session = await provider.initiatePayment(checkout(makeOrder(), 'billet'));
    const id = session.data.invoiceRecordId;
    await repo().update({ id: Not(id) }, { nextCheckAt: NEVER });
    return repo().findOneByOrFail({ id });
  };
  /** Runs `change` at the service with its webhooks dropped: the store never hears of it. */
  const unheard = async (change: () => Promise<unknown>) => {
    sandbox.controls.setWebhookFaults({ drop: 5 });
    try {
      await change();
      await sandbox.controls.waitForDeliveries();
    } finally {
      sandbox.controls.clearFaults();
    }
  };
  const serviceCode = (gatewayId: string | null) =>
    sandbox.controls.getInvoice(gatewayId as string)?.statusCode;

  it('an overdue slip whose due date moves after its window is looked up again: its lost payment is applied', async () => {
    const clock = new ManualClock();
    const app = await startStore(clock);
    try {
      const provider = app.app.get(InvoicePaymentProvider);
      const reconciler = app.app.get(OpenInvoicesReconciler);
      const slip = await newSlip(provider);
      await sandbox.controls.overdue(slip.gatewayId as string);
      // Past its window (30 days from creation, due date plus 3): found overdue, then off the schedule.
      clock.advance(40 * DAY);
      await reconciler.runOnce();
      const off = await repo().findOneByOrFail({ id: slip.id });
      expect(off.statusCode).toBe(15);
      expect(isNever(off.nextCheckAt)).toBe(true);

      // The store moves the due date: the slip is payable again, and back on the schedule in that write.
      const dueDate = new Date(clock.now() + 5 * DAY).toISOString().slice(0, 10);
      await provider.changeDueDate({ data: { invoiceRecordId: slip.id }, dueDate });
      const moved = await repo().findOneByOrFail({ id: slip.id });
      expect(moved).toMatchObject({ statusCode: 15, dueDate });
      expect(isNever(moved.nextCheckAt)).toBe(false);

      await unheard(() => sandbox.controls.pay(slip.gatewayId as string));
      clock.advance(DAY);
      expect(await reconciler.runOnce()).toMatchObject({ checked: 1, applied: 1 });
      const paid = await repo().findOneByOrFail({ id: slip.id });
      expect(paid.statusCode).toBe(5);
      expect(paid.statusCode).toBe(serviceCode(slip.gatewayId));
    } finally {
      await app.close();
    }
  });

  /** A bank slip paid and seen paid, then 40 days on: paid is final, so the reconciliation took it off, with no call. */
  const paidOffSchedule = async (
    provider: InvoicePaymentProvider,
    reconciler: OpenInvoicesReconciler,
    clock: ManualClock,
  ) => {
    const slip = await newSlip(provider);
    await sandbox.controls.pay(slip.gatewayId as string);
    await provider.retrievePayment({ data: { invoiceRecordId: slip.id } });
    clock.advance(40 * DAY);
    await reconciler.runOnce();
    expect(isNever((await repo().findOneByOrFail({ id: slip.id })).nextCheckAt)).toBe(true);
    return slip;
  };

  it('a paid slip refunded after it left the schedule is watched from the refund: its lost completion is applied', async () => {
    const clock = new ManualClock();
    const app = await startStore(clock);
    try {
      const provider = app.app.get(InvoicePaymentProvider);
      const reconciler = app.app.get(OpenInvoicesReconciler);
      const slip = await paidOffSchedule(provider, reconciler, clock);

      // The refund asked for: 7 (awaiting refund) is watched, so the record is back, its window from now.
      const amount = slip.amountCents;
      await provider.refundPayment({ data: { invoiceRecordId: slip.id }, amount, idempotencyKey: slip.id });
      const asked = await repo().findOneByOrFail({ id: slip.id });
      expect(asked.statusCode).toBe(7);
      expect(isNever(asked.nextCheckAt)).toBe(false);
      // Looked up at once, still 7: kept on the schedule (the window from creation ended long ago).
      expect(await reconciler.runOnce()).toMatchObject({ checked: 1, applied: 0 });
      expect(isNever((await repo().findOneByOrFail({ id: slip.id })).nextCheckAt)).toBe(false);

      await unheard(() => sandbox.controls.completeRefund(slip.gatewayId as string));
      clock.advance(DAY);
      expect(await reconciler.runOnce()).toMatchObject({ checked: 1, applied: 1 });
      const refunded = await repo().findOneByOrFail({ id: slip.id });
      expect(refunded.statusCode).toBe(9);
      expect(refunded.statusCode).toBe(serviceCode(slip.gatewayId));
    } finally {
      await app.close();
    }
  });

  it('a record off the schedule stays off when the status applied to it is not watched', async () => {
    const clock = new ManualClock();
    const app = await startStore(clock);
    try {
      const provider = app.app.get(InvoicePaymentProvider);
      const reconciler = app.app.get(OpenInvoicesReconciler);
      const slip = await paidOffSchedule(provider, reconciler, clock);
      // Contested (10): a person's matter, not the reconciliation's.
      await sandbox.controls.contest(slip.gatewayId as string);
      await provider.retrievePayment({ data: { invoiceRecordId: slip.id } });
      const contested = await repo().findOneByOrFail({ id: slip.id });
      expect(contested.statusCode).toBe(10);
      expect(isNever(contested.nextCheckAt)).toBe(true);
      expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    } finally {
      await app.close();
    }
  });
});
