import { InvoiceRecord } from '../../src/index';
import { CLAIM_HEADROOM_MS } from '../../src/checkout/invoice-creation.service';
import { InvoiceRecordStore } from '../../src/core/invoice-record.store';
import type { SandboxServer } from '../../src/sandbox';
import { waitFor } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { watchGuardedStatements } from '../core/status-harness';
import { CheckoutApp, checkout, closeCheckoutScene, makeOrder, openCheckoutScene } from './support';

/**
 * The checkout's answer is settled with the record as stored: what the attempt wrote of its creation state before
 * (a later `settlesAt`, `unknownSince`) is a creation move whose record it keeps, so the status path's one guarded
 * statement (PostgreSQL) lands instead of falling back to the locked transaction.
 */
describeEachDatabase('checkout: the answer settled in one guarded statement', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;
  const watch = watchGuardedStatements();

  beforeAll(async () => {
    ({ db, sandbox, shop } = await openCheckoutScene(kind));
  });
  afterAll(() => closeCheckoutScene({ db, sandbox, shop }));
  afterEach(() => {
    jest.restoreAllMocks();
    sandbox.controls.clearFaults();
  });

  const read = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  /** What the guarded statement did for the checkout: one statement that wrote, on PostgreSQL only. */
  const landed = kind === 'postgres' ? [true] : [];

  it('a request leaving after its claim’s headroom: settlesAt moved on first, the answer still one statement', async () => {
    const store = shop.app.get(InvoiceRecordStore);
    const claim = store.claim.bind(store);
    let claimed: InvoiceRecord | null = null;
    jest.spyOn(store, 'claim').mockImplementation(async (input) => {
      claimed = await claim(input);
      // A busy process between the claim and the send: the send leaves once the claim's headroom has passed.
      const headroomEnds = Date.now() + CLAIM_HEADROOM_MS;
      await waitFor(() => Date.now() > headroomEnds, 10_000, "the claim's headroom passed");
      return claimed;
    });
    const out = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    expect(await watch.statements()).toEqual(landed);
    const stored = await read(out.id);
    expect(stored).toMatchObject({ creationState: 'created', statusCode: 1, unknownSince: null, version: 3 });
    expect(stored.settlesAt!.getTime()).toBeGreaterThan(claimed!.settlesAt!.getTime());
  });

  it('an unknown outcome found by its referrer: unknownSince kept, the answer still one statement', async () => {
    sandbox.controls.addFault({
      method: 'POST',
      path: '/invoices',
      times: 1,
      status: 500,
      afterProcessing: true,
    });
    const out = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    expect(await watch.statements()).toEqual(landed);
    const stored = await read(out.id);
    expect(stored).toMatchObject({ creationState: 'created', statusCode: 1, version: 3 });
    expect(stored.unknownSince).toEqual(expect.any(Date));
  });
});
