import { InvoiceRecord } from '../../src/index';
import { CreationOutcomes } from '../../src/checkout/creation-outcomes.service';
import { LateInvoiceService } from '../../src/checkout/late-invoice.service';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, type TestDatabase } from '../support/databases';
import {
  checkout,
  closeCheckoutScene,
  makeOrder,
  openCheckoutDatabase,
  startCheckoutApp,
  type CheckoutApp,
} from './support';

/**
 * A late invoice's duplicate mark is written in its link's one write: a link that fails leaves no mark behind, so
 * once the attempt holding the order is closed, the late invoice is the order's (not a duplicate of a closed one).
 */
describeEachDatabase('checkout: a late invoice marked as a duplicate in its link', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    shop = await startCheckoutApp(db, sandbox, { creationWaitMs: 2000 });
  });
  afterAll(() => closeCheckoutScene({ db, sandbox, shop }));

  /** Attempt 1 closed as not created though its invoice landed; attempt 2 pending, holding the order. */
  async function scene() {
    const order = makeOrder();
    await shop.provider.initiatePayment(checkout(order, 'pix'));
    const repo = db.dataSource.getRepository(InvoiceRecord);
    const [first] = await shop.records(order.id);
    const invoice = (await shop.gateway.findInvoiceById(first.gatewayId!))!;
    const unlinked = {
      gatewayId: null,
      gatewayUuid: null,
      gatewayInvoiceId: null,
      statusCode: null,
      statusText: null,
    };
    await repo.update(
      { id: first.id },
      { ...unlinked, creationState: 'failed', openOrderId: null, failureReason: 'not found' },
    );
    const second = `${first.id.slice(0, -4)}bbbb`;
    await repo.insert({
      ...first,
      ...unlinked,
      id: second,
      attempt: 2,
      referrer: first.referrer.replace(/-1$/, '-2'),
      creationState: 'pending',
      openOrderId: order.id,
      // Another attempt's shopper token is its own (the hashes are unique).
      statusTokenHash: null,
      previousTokenHash: null,
      version: 1,
    });
    return { order, first, second, invoice, repo };
  }

  it("a link that fails writes no mark; linked once the holder closed, it is the order's invoice", async () => {
    const { order, first, second, invoice, repo } = await scene();
    const link = jest.spyOn(shop.app.get(CreationOutcomes), 'link');
    link.mockRejectedValueOnce(new Error('connection terminated'));
    await expect(shop.app.get(LateInvoiceService).adopt(invoice, 'webhook')).rejects.toThrow('terminated');
    link.mockRestore();
    expect(await repo.findOneByOrFail({ id: first.id })).toMatchObject({
      gatewayId: null,
      duplicateOf: null,
    });

    // The holder's creation is refused meanwhile; the delivery's retry links the late invoice.
    await repo.update({ id: second }, { creationState: 'failed', openOrderId: null });
    await shop.app.get(LateInvoiceService).adopt(invoice, 'webhook');
    expect(await repo.findOneByOrFail({ id: first.id })).toMatchObject({
      gatewayId: invoice.id,
      duplicateOf: null,
      openOrderId: order.id,
    });
    await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('linked while another attempt holds the order: marked as its duplicate in the same write', async () => {
    const { first, second, invoice, repo } = await scene();
    await shop.app.get(LateInvoiceService).adopt(invoice, 'webhook');
    expect(await repo.findOneByOrFail({ id: first.id })).toMatchObject({
      gatewayId: invoice.id,
      duplicateOf: second,
    });
  });
});
