import { InvoiceNumberClashError, InvoiceRecord, InvoiceStatusHistory } from '../../src/index';
import type { CreateInvoiceParams } from '../../src/gateway/types';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import type { SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { CheckoutApp, checkout, closeCheckoutScene, makeOrder, openCheckoutScene, waitFor } from './support';

/** The create request's answer is held this long: the twin invoice is made and adopted meanwhile. */
const HOLD_MS = 3_000;

/**
 * Found by an outside review: a create answer arriving after the attempt's record was linked to another invoice (a
 * second invoice under the attempt's referrer, adopted by the sweep) overwrote the number the record held on the
 * locked write path. The record keeps the invoice it holds; the answer writes nothing and is alerted as a clash.
 */
describeEachDatabase('checkout: a create answer for a record linked meanwhile to another invoice', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;

  beforeAll(async () => {
    ({ db, sandbox, shop } = await openCheckoutScene(kind));
  });
  afterAll(() => closeCheckoutScene({ db, sandbox, shop }));

  it('keeps the other number, writes no history of the answer, and raises an invoice_number_clash alert', async () => {
    const held = sandbox.controls.addFault({
      method: 'POST',
      path: '/invoices',
      times: 1,
      latencyMs: HOLD_MS,
    });
    const create = jest.spyOn(shop.gateway, 'createInvoice');
    const order = makeOrder();
    const session = shop.provider.initiatePayment(checkout(order, 'pix')).then(
      () => null,
      (err: unknown) => err,
    );
    await waitFor(() => !sandbox.controls.faults().some((f) => f.id === held.id), 5_000, 'create sent');
    const [params] = create.mock.calls[0] as [CreateInvoiceParams];
    create.mockRestore();

    // A twin under the attempt's referrer (the same order, amount and payment id), linked by the sweep's adoption.
    const other = await shop.gateway.createInvoice(params);
    expect((await shop.app.get(ReconciliationService).sweep()).error).toBeNull();
    const [linked] = await shop.records(order.id);
    expect(linked).toMatchObject({ gatewayId: other.id, creationState: 'created', statusCode: 1 });
    const history = db.dataSource.getRepository(InvoiceStatusHistory);
    // The rows themselves; their notification columns move as the dispatcher hands the sweep's row to the host.
    const rowsOf = async () =>
      (await history.findBy({ invoiceRecordId: linked.id })).map(
        ({ id, source, fromCode, toCode, note }) => ({
          id,
          source,
          fromCode,
          toCode,
          note,
        }),
      );
    const before = await rowsOf();
    expect(before.map((row) => row.source)).toEqual(['sweep']);

    const error = await session;
    expect(error).toBeInstanceOf(InvoiceNumberClashError);
    const answered = (error as InvoiceNumberClashError).gatewayId;
    expect(answered).not.toBe(other.id);
    expect(error).toMatchObject({ invoiceRecordId: linked.id, heldGatewayId: other.id });
    await shop.notified();

    const record = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: linked.id });
    expect(record).toMatchObject({
      gatewayId: other.id,
      gatewayUuid: other.uuid,
      creationState: 'created',
      statusCode: 1,
      openOrderId: order.id,
    });
    expect(await rowsOf()).toEqual(before);
    expect(shop.alerts).toEqual([
      expect.objectContaining({
        kind: 'invoice_number_clash',
        orderId: order.id,
        invoiceRecordId: linked.id,
      }),
    ]);
    expect(shop.alerts[0].message).toContain(`invoice ${answered}`);
    expect(shop.alerts[0].message).toContain(`holds invoice ${other.id}`);

    // The answered invoice is a second one under the attempt's referrer: the next sweep cancels it.
    expect((await shop.app.get(ReconciliationService).sweep()).error).toBeNull();
    expect((await shop.gateway.findInvoiceById(answered))?.status.code).toBe(6);
    const after = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: linked.id });
    expect(after).toMatchObject({ gatewayId: other.id, statusCode: 1, version: record.version });
  });
});
