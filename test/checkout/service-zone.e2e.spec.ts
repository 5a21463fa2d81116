import { CLOCK } from '../../src/domain/clock';
import { InvoicePaymentProvider, InvoicePaymentsModule, InvoiceRecord } from '../../src/index';
import { ShopperPaymentsService } from '../../src/checkout/shopper-payments.service';
import { OpenInvoicesReconciler } from '../../src/reconciliation/open-invoices.reconciler';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { HostApp, RecordingOrderPort, sandboxGateway, startHostApp } from '../support/app';
import { ShiftedClock } from '../support/clock';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { checkout, makeOrder, openCheckoutDatabase } from './support';

/** A service that chose Tokyo's days, where A2 says São Paulo's. */
const SERVICE_ZONE = 'Asia/Tokyo';
/** 15:30 UTC on 22 Nov: 00:30 on the 23rd in Tokyo, 12:30 on the 22nd in São Paulo (the store's zone). */
const AFTER_TOKYO_MIDNIGHT = new Date('2026-11-22T15:30:00Z');
/** Where the 23rd ends in Tokyo: 24 Nov 00:00 +09:00 (São Paulo's 23rd ends 12 hours later). */
const TOKYO_DUE_END = '2026-11-23T15:00:00.000Z';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * The module follows a service in another time zone by configuration alone: the sandbox counts its days in Tokyo
 * (`timeZone`), the module is told so by the wire profile (`gateway.profile.timeZone`), and the store stays in São
 * Paulo. At an hour where Tokyo is a day ahead, a due day counted in the store's zone (or São Paulo's) is refused.
 */
describeEachDatabase('a service counting its days in Tokyo, followed through the wire profile', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: HostApp;
  let provider: InvoicePaymentProvider;
  const clock = new ShiftedClock(AFTER_TOKYO_MIDNIGHT);

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ clock: () => clock.date(), timeZone: SERVICE_ZONE });
    const root = InvoicePaymentsModule.forRoot({
      gateway: { ...sandboxGateway(sandbox.url), profile: { timeZone: SERVICE_ZONE } },
      checkout: { dueDays: 0 },
      // No margin and one late step: an open invoice's last look is its due day's end, where the service counts.
      reconciliation: { intervalMs: 0, stepsMs: [MINUTE, 7 * DAY], dueDateMarginMs: 0, minimumWindowMs: 0 },
      orderPort: RecordingOrderPort,
    });
    shop = await startHostApp(db, [root], { overrides: [[CLOCK, clock]] });
    provider = shop.app.get(InvoicePaymentProvider);
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it("creates a PIX due today by the service's day (the 23rd), the store still on the 22nd", async () => {
    const out = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
    expect(out.data).toMatchObject({ creationState: 'created', dueDate: '2026-11-23' });
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.dueDay).toBe('2026-11-23');
  });

  it("moves a due date no earlier than the service's today, and names that day when refusing", async () => {
    const out = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
    const early = provider.changeDueDate({ data: out.data, dueDate: '2026-11-22' });
    await expect(early).rejects.toMatchObject({
      fields: { dueDate: [expect.stringContaining('2026-11-23')] },
    });
    const moved = await provider.changeDueDate({ data: out.data, dueDate: '2026-11-23' });
    expect(moved.data.dueDate).toBe('2026-11-23');
  });

  it("looks at an open invoice last when its due day ends in the service's zone", async () => {
    clock.advance(2 * MINUTE); // past the first step: the round looks them up and schedules the next look
    const round = await shop.app.get(OpenInvoicesReconciler).runOnce();
    expect(round).toMatchObject({ leader: true, checked: 2, errors: 0 });
    const records = await db.dataSource.getRepository(InvoiceRecord).find();
    expect(records.map((r) => r.dueDate)).toEqual(['2026-11-23', '2026-11-23']);
    expect(records.map((r) => r.nextCheckAt?.toISOString())).toEqual([TOKYO_DUE_END, TOKYO_DUE_END]);
  });

  it("sweeps the invoices listed from the service's day 30 days back", async () => {
    const sweep = await shop.app.get(OpenInvoicesReconciler).sweep();
    expect(sweep).toMatchObject({ error: null, seen: 2, matched: 2 });
  });

  it("shows the shopper a PIX expiring when its due day ends in the service's zone, and renews it from that day", async () => {
    const out = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
    const shopper = shop.app.get(ShopperPaymentsService);
    const view = await shopper.readByToken(out.data.statusToken);
    expect(view).toMatchObject({ state: 'waiting', renewable: false });
    expect(view.pix?.expiresAt).toBe(TOKYO_DUE_END);
    // Five minutes before Tokyo's 23rd ends (São Paulo's has 12 hours to go): renewable, to Tokyo's 24th.
    clock.advance(Date.parse(TOKYO_DUE_END) - clock.now() - 5 * MINUTE);
    expect(await shopper.readByToken(out.data.statusToken)).toMatchObject({
      state: 'waiting',
      renewable: true,
    });
    const renewed = await shopper.renewByToken(out.data.statusToken);
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.dueDay).toBe('2026-11-24');
    expect(renewed).toMatchObject({ state: 'waiting', renewable: false });
  });
});
