import { CLOCK } from '../../src/domain/clock';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { ShiftedClock } from '../support/clock';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { checkout, makeOrder, openCheckoutDatabase, startCheckoutApp, type CheckoutApp } from './support';

/** 23:30 in Manaus (UTC-4), already 00:30 of the next day in São Paulo, where the service counts its days (A2). */
const AFTER_SAO_PAULO_MIDNIGHT = new Date('2026-11-30T03:30:00Z');

/**
 * A store west of São Paulo, between the service's midnight and its own: the service has moved to the next day, the
 * store has not. A due day counted in the store's zone alone is one the service refuses ("must not be before
 * today"); the store and the sandbox share one clock set to that hour.
 */
describeEachDatabase("due days at the service's midnight, for a store in Manaus", (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;
  const clock = new ShiftedClock(AFTER_SAO_PAULO_MIDNIGHT);

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ clock: () => clock.date() });
    const options = { timeZone: 'America/Manaus', dueDays: 0 };
    shop = await startCheckoutApp(db, sandbox, options, {}, [[CLOCK, clock]]);
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it("creates a PIX due today with the service's today, not the store's (the service's yesterday)", async () => {
    const out = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    expect(out.data).toMatchObject({ creationState: 'created', dueDate: '2026-11-30' });
    expect(sandbox.controls.getInvoice(out.data.gatewayId!)?.dueDay).toBe('2026-11-30');
  });

  it("moves a due date no earlier than the service's today, and names that day when refusing", async () => {
    const out = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    const early = shop.provider.changeDueDate({ data: out.data, dueDate: '2026-11-29' });
    await expect(early).rejects.toMatchObject({
      fields: { dueDate: [expect.stringContaining('2026-11-30')] },
    });
    const moved = await shop.provider.changeDueDate({ data: out.data, dueDate: '2026-11-30' });
    expect(moved.data.dueDate).toBe('2026-11-30');
  });
});
