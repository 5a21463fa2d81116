import { startSandbox, SandboxServer, TEST_CARDS } from '../../src/sandbox';
import {
  CheckoutValidationError,
  GatewayOutcomeUnknownError,
  InvoiceOperationNotAllowedError,
  OpenInvoiceConflictError,
} from '../../src/index';
import { InvoiceCreationService } from '../../src/checkout/invoice-creation.service';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  CheckoutApp,
  checkout,
  makeOrder,
  openCheckoutDatabase,
  startCheckoutApp,
  referrerOf,
} from './support';

describeEachDatabase('checkout lifecycle against the sandbox over HTTP', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;
  const cardToken = (number: string) =>
    sandbox.controls.createCardToken({ number, holder: 'MARIA SILVA', expiry: '12/30' });

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ autoProcessCards: false });
    shop = await startCheckoutApp(db, sandbox);
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('PIX: initiate returns the QR code and copy-and-paste code, stores the invoice and tells the host', async () => {
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'pix'));

    expect(out.status).toBe('pending');
    expect(out.id).toBe(out.data.invoiceRecordId);
    expect(out.data).toMatchObject({
      orderId: order.id,
      method: 'pix',
      attempt: 1,
      referrer: referrerOf(order.id, 1),
      creationState: 'created',
      statusCode: 1,
      amountCents: 11990,
      amountMismatch: false,
    });
    expect(out.data.pix?.payload).toMatch(/^000201/);
    expect(out.data.pix?.image).toMatch(/^https?:\/\//);
    expect(out.data.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const [record] = await shop.records(order.id);
    expect(record).toMatchObject({ openOrderId: order.id, gatewayId: out.data.gatewayId, grossCents: 11990 });
    const atService = sandbox.controls.renderInvoice(out.data.gatewayId!);
    expect(atService?.referrer).toEqual(referrerOf(order.id, 1));
    expect(await shop.invoicesAtService(order.id)).toBe(1);

    await shop.notified();
    const told = shop.port.changes.filter((c) => c.orderId === order.id);
    expect(told.map((c) => [c.source, c.current.code, c.current.orderPaymentStatus])).toEqual([
      ['create', 1, 'awaiting'],
    ]);

    // The same checkout again: the same invoice, no second request.
    const again = await shop.provider.initiatePayment(checkout(order, 'pix'));
    expect(again.id).toBe(out.id);
    expect(await shop.invoicesAtService(order.id)).toBe(1);
  });

  it('bank slip: returns the digitable line, barcode and link; the due date moves (status 1 and 15)', async () => {
    const order = makeOrder();
    const out = await shop.provider.initiatePayment(checkout(order, 'billet'));
    expect(out.data.billet?.line).toMatch(/^\d{47}$/);
    expect(out.data.billet?.barcode).toMatch(/^\d{44}$/);
    expect(out.data.billet?.url).toMatch(/^https?:\/\//);

    const moved = await shop.provider.changeDueDate({ data: out.data, dueDate: '2099-01-15' });
    expect(moved.data.dueDate).toBe('2099-01-15');
    expect(sandbox.controls.renderInvoice(out.data.gatewayId!)?.due_at.day).toMatch(/^2099-01-15/);

    await sandbox.controls.overdue(out.data.gatewayId!);
    await shop.provider.retrievePayment({ data: out.data });
    expect((await shop.provider.getPaymentStatus({ data: out.data })).status).toBe('requires_more');
    const again = await shop.provider.changeDueDate({ data: out.data, dueDate: '2099-02-01' });
    expect(again.data.dueDate).toBe('2099-02-01');
  });

  it('due-date change is refused before calling the service: card, paid, past or malformed date', async () => {
    const card = await shop.provider.initiatePayment(
      checkout(makeOrder(), 'card', cardToken(TEST_CARDS.approved)),
    );
    const pix = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    await expect(shop.provider.changeDueDate({ data: pix.data, dueDate: '2020-01-01' })).rejects.toThrow(
      CheckoutValidationError,
    );
    await expect(shop.provider.changeDueDate({ data: pix.data, dueDate: '2099-02-30' })).rejects.toThrow(
      /dueDate/,
    );
    await sandbox.controls.pay(pix.data.gatewayId!);
    await shop.provider.retrievePayment({ data: pix.data });

    const before = sandbox.deliveries().length;
    const dueBefore = sandbox.controls.renderInvoice(pix.data.gatewayId!)?.due_at.day;
    await expect(shop.provider.changeDueDate({ data: card.data, dueDate: '2099-01-15' })).rejects.toThrow(
      /only PIX and bank-slip/,
    );
    await expect(shop.provider.changeDueDate({ data: pix.data, dueDate: '2099-01-15' })).rejects.toThrow(
      InvoiceOperationNotAllowedError,
    );
    expect(sandbox.controls.renderInvoice(pix.data.gatewayId!)?.due_at.day).toBe(dueBefore);
    expect(sandbox.deliveries().length).toBe(before);
  });

  it('status, capture and refunds: partial, then the rest, never more than was paid', async () => {
    const order = makeOrder();
    const { data } = await shop.provider.initiatePayment(checkout(order, 'pix'));
    await expect(shop.provider.capturePayment({ data })).rejects.toThrow(/no capture operation/);

    await sandbox.controls.pay(data.gatewayId!);
    expect((await shop.provider.getPaymentStatus({ data })).status).toBe('pending'); // not asked yet
    const paid = await shop.provider.retrievePayment({ data });
    expect(paid.data).toMatchObject({ statusCode: 5, sessionStatus: 'captured' });
    expect((await shop.provider.capturePayment({ data })).data.statusCode).toBe(5);
    expect((await shop.provider.authorizePayment({ data })).status).toBe('captured');

    await expect(shop.provider.refundPayment({ data, amount: 11991 })).rejects.toThrow(
      CheckoutValidationError,
    );
    await expect(shop.provider.refundPayment({ data, amount: 10.5 })).rejects.toThrow(/amount/);
    const partial = await shop.provider.refundPayment({ data, amount: 1990 });
    expect(partial.data).toMatchObject({ statusCode: 8, refundedCents: 1990, sessionStatus: 'captured' });
    const rest = await shop.provider.refundPayment({ data, amount: 10000 });
    expect(rest.data).toMatchObject({ statusCode: 9, refundedCents: 11990 });
    await expect(shop.provider.refundPayment({ data, amount: 1 })).rejects.toThrow(
      InvoiceOperationNotAllowedError,
    );

    await shop.notified();
    const told = shop.port.changes
      .filter((c) => c.orderId === order.id)
      .map((c) => c.current.orderPaymentStatus);
    expect(told).toEqual(['awaiting', 'captured', 'partially_refunded', 'refunded']);
  });

  it('bank-slip refund waits for the money to go back (7), refused on an unpaid invoice', async () => {
    const { data } = await shop.provider.initiatePayment(checkout(makeOrder(), 'billet'));
    await expect(shop.provider.refundPayment({ data, amount: 100 })).rejects.toThrow(/only paid invoices/);
    await sandbox.controls.pay(data.gatewayId!);
    await shop.provider.retrievePayment({ data });
    const out = await shop.provider.refundPayment({ data, amount: 11990 });
    expect(out.data.statusCode).toBe(7);
  });

  it('cancel: the open invoice is canceled, the order is free, and the customer switches to card', async () => {
    const order = makeOrder();
    const pix = await shop.provider.initiatePayment(checkout(order, 'pix'));
    const token = cardToken(TEST_CARDS.approved);
    await expect(shop.provider.initiatePayment(checkout(order, 'card', token))).rejects.toThrow(
      OpenInvoiceConflictError,
    );

    const canceled = await shop.provider.cancelPayment({ data: pix.data });
    expect(canceled.data).toMatchObject({ statusCode: 6, sessionStatus: 'canceled' });
    expect(sandbox.controls.renderInvoice(pix.data.gatewayId!)?.status.code).toBe(6);
    expect((await shop.provider.cancelPayment({ data: pix.data })).data.statusCode).toBe(6); // idempotent

    const card = await shop.provider.initiatePayment(checkout(order, 'card', token, 3));
    expect(card.data).toMatchObject({
      method: 'card',
      attempt: 2,
      referrer: referrerOf(order.id, 2),
      installments: 3,
    });
    expect(card.data.card).toEqual({ brand: expect.any(String), last4: '1111' });
    const records = await shop.records(order.id);
    expect(records.map((r) => [r.attempt, r.openOrderId])).toEqual([
      [1, null],
      [2, order.id],
    ]);
    expect(await shop.invoicesAtService(order.id)).toBe(2);
  });

  it('a denied card (12) closes the attempt and allows a new one', async () => {
    const order = makeOrder();
    const first = await shop.provider.initiatePayment(checkout(order, 'card', cardToken(TEST_CARDS.denied)));
    await sandbox.controls.pay(first.data.gatewayId!, { approved: false });
    const denied = await shop.provider.retrievePayment({ data: first.data });
    expect(denied.data).toMatchObject({ statusCode: 12, sessionStatus: 'error' });
    await expect(shop.provider.cancelPayment({ data: first.data })).rejects.toThrow(
      InvoiceOperationNotAllowedError,
    );
    expect((await shop.provider.deletePayment({ data: first.data })).data.statusCode).toBe(12);

    const second = await shop.provider.initiatePayment(
      checkout(order, 'card', cardToken(TEST_CARDS.approved)),
    );
    expect(second.data.attempt).toBe(2);
    expect(second.id).not.toBe(first.id);
  });

  it('updatePayment: same values keep the session; another method cancels it and creates another', async () => {
    const order = makeOrder();
    const pix = await shop.provider.initiatePayment(checkout(order, 'pix'));
    const same = await shop.provider.updatePayment({
      amount: order.total,
      currency_code: 'BRL',
      data: pix.data,
    });
    expect(same.id).toBe(pix.id);

    const bad = { ...checkout(order, 'card'), data: { ...pix.data, order, method: 'card' as const } };
    await expect(shop.provider.updatePayment(bad)).rejects.toThrow(/card is required/);
    expect((await shop.records(order.id))[0].statusCode).toBe(1); // bad input canceled nothing

    const token = cardToken(TEST_CARDS.approved);
    const reads = jest.spyOn(shop.app.get(InvoiceCreationService), 'current');
    const switched = await shop.provider.updatePayment({
      amount: order.total,
      currency_code: 'BRL',
      data: { ...pix.data, ...checkout(order, 'card', token).data },
    });
    expect(switched.data).toMatchObject({ method: 'card', attempt: 2 });
    // The options in force are read once: the order's mapping and its creation go by the same settings.
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
    expect(sandbox.controls.renderInvoice(pix.data.gatewayId!)?.status.code).toBe(6);
  });

  it('updatePayment after a lost cancel answer: the PIX canceled at the service is read back, the card follows', async () => {
    const order = makeOrder();
    const pix = await shop.provider.initiatePayment(checkout(order, 'pix'));
    const input = {
      amount: order.total,
      currency_code: 'BRL',
      data: { ...pix.data, ...checkout(order, 'card', cardToken(TEST_CARDS.approved)).data },
    };
    // The service cancels the PIX and its answer is lost; the read-back after it is refused (400: never retried).
    sandbox.controls.addFault({
      method: 'DELETE',
      path: '/invoices',
      times: 1,
      afterProcessing: true,
      dropConnection: true,
    });
    sandbox.controls.addFault({ method: 'GET', path: '/invoices', times: 1, status: 400 });
    await expect(shop.provider.updatePayment(input)).rejects.toThrow(GatewayOutcomeUnknownError);
    expect(sandbox.controls.renderInvoice(pix.data.gatewayId!)?.status.code).toBe(6);

    // The retry's cancel is refused (already canceled): the store reads the invoice back and goes on.
    const switched = await shop.provider.updatePayment(input);
    expect(switched.data).toMatchObject({ method: 'card', attempt: 2 });
    const records = await shop.records(order.id);
    expect(records.map((r) => [r.attempt, r.statusCode, r.openOrderId])).toEqual([
      [1, 6, null],
      [2, expect.any(Number), order.id],
    ]);
    expect(await shop.invoicesAtService(order.id)).toBe(2);
  });

  it('deletePayment whose cancel answer is lost reads the invoice back: canceled, at once', async () => {
    const order = makeOrder();
    const pix = await shop.provider.initiatePayment(checkout(order, 'pix'));
    sandbox.controls.addFault({
      method: 'DELETE',
      path: '/invoices',
      times: 1,
      afterProcessing: true,
      dropConnection: true,
    });
    const deleted = await shop.provider.deletePayment({ data: pix.data });
    expect(deleted.data).toMatchObject({ statusCode: 6, sessionStatus: 'canceled' });
    expect((await shop.records(order.id))[0].openOrderId).toBeNull();
  });

  it('bad input names the field and sends nothing', async () => {
    const order = makeOrder({ customer: { name: 'Maria', document: '123.456.789-00' } });
    const before = sandbox.deliveries().length;
    await expect(shop.provider.initiatePayment(checkout(order, 'pix'))).rejects.toThrow(
      /order\.customer\.document is not a valid CPF or CNPJ/,
    );
    expect(await shop.records(order.id)).toHaveLength(0);
    expect(await shop.invoicesAtService(order.id)).toBe(0);
    expect(sandbox.deliveries().length).toBe(before);
  });

  it('getWebhookActionAndData authenticates a delivery (§6), confirms it with the service and maps what the service says through the status table', async () => {
    const { data } = await shop.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    const delivery = () => ({
      event: 'invoice.update',
      delivery_id: 'd-1',
      webhook: 'default',
      sent_at: '2026-11-21 10:00:00',
      invoice: structuredClone(sandbox.controls.renderInvoice(data.gatewayId!)!),
    });
    // The headers a real delivery from the account's default webhook carries (§6: id line, token line).
    const hook = sandbox.controls.webhooks().find((w) => w.id === 'default')!;
    const genuine = { webhook: ['default', Buffer.from(`:${hook.token}`).toString('base64')] };
    // The service gives every delivery its own id: each call below is a new delivery, not a retry of the last.
    let sent = 0;
    const action = (body: object, headers: Record<string, unknown> = genuine) => {
      const copy = structuredClone(body) as Record<string, unknown>;
      const own = `d-${++sent}`;
      if ('delivery_id' in copy) copy.delivery_id = own;
      const inner = copy.data as Record<string, unknown> | undefined;
      if (inner && 'delivery_id' in inner) inner.delivery_id = own;
      return shop.provider.getWebhookActionAndData({ data: copy, rawData: '', headers });
    };

    expect(await action(delivery())).toEqual({
      action: 'pending',
      data: { session_id: data.invoiceRecordId, amount: 11990 },
    });
    // A genuine token on a body that claims "paid" while the service says 1: the service is the truth.
    const claimsPaid = delivery();
    claimsPaid.invoice.status.code = 5;
    expect((await action(claimsPaid)).action).toBe('pending');
    await sandbox.controls.pay(data.gatewayId!);
    const paid = delivery();
    expect(await action(paid)).toEqual({
      action: 'captured',
      data: { session_id: data.invoiceRecordId, amount: 11990 },
    });
    // A body alone is not a delivery: without a token line, or with a line that is no token, nothing is acted on.
    // (The service half of a token is not asked of the service: what is answered is the service's own lookup.)
    expect(await action(paid, {})).toEqual({ action: 'not_supported' });
    const forged = { webhook: ['default', 'forged-service-token'] };
    expect(await action(paid, forged)).toEqual({ action: 'not_supported' });
    const tokenLineOnly = { webhook: [Buffer.from(`:${hook.token}`).toString('base64')] };
    expect((await action(paid, tokenLineOnly)).action).toBe('captured');
    // The event wrapper around the current shape reads like the bare delivery (the webhook route's reader).
    expect(await action({ event: 'invoice.update', data: paid })).toEqual({
      action: 'captured',
      data: { session_id: data.invoiceRecordId, amount: 11990 },
    });
    // The action follows what the service reports, through the status table, whatever the body says.
    for (const [code, expected] of [
      [4, 'authorized'],
      [15, 'requires_more'],
      [12, 'failed'],
      [6, 'canceled'],
      [9, 'not_supported'],
      [13, 'not_supported'],
    ] as const) {
      await sandbox.controls.setStatus(data.gatewayId!, code);
      expect({ code, action: (await action(paid)).action }).toEqual({ code, action: expected });
    }
    // Refunded (9) here: no report moves the record again, so a delivery of it is acknowledged unstored, not looked
    // up (the service claiming "paid" again is not asked about).
    await sandbox.controls.setStatus(data.gatewayId!, 5);
    expect(await action(paid)).toEqual({ action: 'not_supported' });
    const stranger = delivery();
    stranger.invoice.id = 'not-ours';
    stranger.invoice.referrer = 'not-ours-1';
    expect((await action(stranger)).action).toBe('not_supported');
    expect(await action({ event: 'invoice.update', invoice: null })).toEqual({ action: 'not_supported' });
  });
});
