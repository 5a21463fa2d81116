import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { TransactionalConnection } from '@vendure/core';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { ReconciliationService } from '../../src/reconciliation/open-invoices.reconciler';
import { TEST_CARDS } from '../../src/sandbox';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { waitFor } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  ADD_ITEM,
  adminOrder,
  AdminOrder,
  cartReadyToPay,
  CPF,
  startCardPayment,
  startPayment,
} from './flows';
import {
  ADD_FULFILLMENT,
  APPLY_COUPON,
  CANCEL_ORDER,
  CREATE_PROMOTION,
  PAYMENT_METHODS,
  REFUND_ORDER,
  SETTLE_PAYMENT,
  TRANSITION_FULFILLMENT,
  UPDATE_PAYMENT_METHOD,
} from './graphql';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(120_000);

/** The order's history notes. */
const notes = (order: AdminOrder) =>
  order.history.items.filter((h) => h.type === 'ORDER_NOTE').map((h) => String(h.data.note));

describeEachDatabase('InvoicePaymentsPlugin in a real Vendure server', (kind) => {
  let env: VendureTestEnv;

  beforeAll(async () => {
    env = await startVendure(kind);
  });
  afterAll(async () => {
    await env?.close();
  });

  const settled = async (id: string, state = 'PaymentSettled'): Promise<AdminOrder> => {
    let order!: AdminOrder;
    await waitFor(
      async () => (order = await adminOrder(env, id)).state === state,
      20_000,
      `order ${id} ${state}`,
    );
    return order;
  };
  /** The webhook request the sandbox sent for `invoiceId` reaching `code`, as it was sent. */
  const deliveryOf = (invoiceId: string, code: number) => {
    const d = env.sandbox.controls
      .deliveries()
      .find((x) => x.invoiceId === invoiceId && x.statusCode === code);
    if (!d) throw new Error(`no delivery of status ${code} for invoice ${invoiceId}`);
    return d;
  };
  const post = (headers: Record<string, string | string[]>, body: unknown) => {
    const h = new Headers();
    for (const [name, value] of Object.entries(headers)) {
      for (const v of Array.isArray(value) ? value : [value]) h.append(name, v);
    }
    return fetch(env.webhookUrl, { method: 'POST', headers: h, body: JSON.stringify(body) });
  };

  let pixOrder: { id: string; invoiceId: string };

  it('PIX: the storefront gets the QR code; the paid webhook settles the order with one Payment', async () => {
    const cart = await cartReadyToPay(env, `pix-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    // 2 × R$ 59,90 + R$ 15,00 shipping, prices with tax.
    expect(session).toMatchObject({
      method: 'pix',
      statusCode: 1,
      amount: 13480,
      orderState: 'ArrangingPayment',
    });
    expect(session.pix?.payload).toMatch(/^000201/);
    expect(session.pix?.image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const invoice = env.sandbox.controls.getInvoice(session.invoiceId!)!;
    expect(invoice.client.document).toBe('52998224725');
    expect(invoice.grossCents).toBe(13480);
    expect(invoice.shippingCents).toBe(1500);

    await env.sandbox.controls.pay(session.invoiceId!);
    const order = await settled(cart.id);
    expect(order.payments).toHaveLength(1);
    expect(order.payments[0]).toMatchObject({
      state: 'Settled',
      amount: 13480,
      transactionId: session.invoiceId,
    });
    pixOrder = { id: cart.id, invoiceId: session.invoiceId! };
  });

  it('the same delivery sent again: received as a duplicate, still one Payment', async () => {
    const paid = deliveryOf(pixOrder.invoiceId, 5);
    const res = await post(paid.headers, paid.body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ duplicate: true });
    await env.sandbox.controls.waitForDeliveries();
    const order = await adminOrder(env, pixOrder.id);
    expect(order.state).toBe('PaymentSettled');
    expect(order.payments).toHaveLength(1);
  });

  it('a Fulfillment moved to Shipped posts its tracking code to the service', async () => {
    const order = await adminOrder(env, pixOrder.id);
    const { addFulfillmentToOrder } = await env.admin.query(ADD_FULFILLMENT, {
      input: {
        lines: order.lines.map((l) => ({ orderLineId: l.id, quantity: l.quantity })),
        handler: {
          code: 'manual-fulfillment',
          arguments: [
            { name: 'method', value: 'Correios' },
            { name: 'trackingCode', value: 'BR123456789BR' },
          ],
        },
      },
    });
    expect(addFulfillmentToOrder.id).toBeDefined();
    expect(env.sandbox.controls.getInvoice(pixOrder.invoiceId)!.tracking).toBeNull();
    const { transitionFulfillmentToState } = await env.admin.query(TRANSITION_FULFILLMENT, {
      id: addFulfillmentToOrder.id,
      state: 'Shipped',
    });
    expect(transitionFulfillmentToState.state).toBe('Shipped');
    await waitFor(
      () => env.sandbox.controls.getInvoice(pixOrder.invoiceId)!.tracking !== null,
      20_000,
      'tracking',
    );
    expect(env.sandbox.controls.getInvoice(pixOrder.invoiceId)!.tracking).toMatchObject({
      code: 'BR123456789BR',
      carrier: 'Correios',
    });
  });

  it('a contestation at the service is written on the order', async () => {
    await env.sandbox.controls.contest(pixOrder.invoiceId);
    await waitFor(
      async () => notes(await adminOrder(env, pixOrder.id)).some((n) => /contested/.test(n)),
      20_000,
      'contestation note',
    );
    const order = await adminOrder(env, pixOrder.id);
    expect(order.payments).toHaveLength(1);
    expect(order.payments[0].state).toBe('Settled');
  });

  let cardOrder: { id: string; invoiceId: string; paymentId: string };

  it('card: the token from the service settles the order', async () => {
    const cart = await cartReadyToPay(env, `card-${kind}@example.com`);
    const session = await startCardPayment(env, TEST_CARDS.approved, 2);
    expect(session).toMatchObject({ method: 'card', amount: 13480 });
    const order = await settled(cart.id);
    expect(order.payments).toHaveLength(1);
    expect(order.payments[0]).toMatchObject({
      state: 'Settled',
      amount: 13480,
      transactionId: session.invoiceId,
    });
    cardOrder = { id: cart.id, invoiceId: session.invoiceId!, paymentId: order.payments[0].id };
  });

  it('refundOrder refunds through the service: partial (8), then the rest (9)', async () => {
    const partial = await env.admin.query(REFUND_ORDER, {
      input: {
        paymentId: cardOrder.paymentId,
        amount: 3000,
        lines: [],
        shipping: 0,
        adjustment: 0,
        reason: 'one shirt returned',
      },
    });
    expect(partial.refundOrder).toMatchObject({
      state: 'Settled',
      total: 3000,
      transactionId: cardOrder.invoiceId,
    });
    expect(env.sandbox.controls.getInvoice(cardOrder.invoiceId)!.statusCode).toBe(8);

    const rest = await env.admin.query(REFUND_ORDER, {
      input: {
        paymentId: cardOrder.paymentId,
        amount: 10480,
        lines: [],
        shipping: 0,
        adjustment: 0,
        reason: 'order returned',
      },
    });
    expect(rest.refundOrder).toMatchObject({ state: 'Settled', total: 10480 });
    expect(env.sandbox.controls.getInvoice(cardOrder.invoiceId)!.statusCode).toBe(9);
    await env.sandbox.controls.waitForDeliveries();
    const order = await adminOrder(env, cardOrder.id);
    expect(order.payments).toHaveLength(1);
    expect(order.payments[0].refunds.map((r) => [r.state, r.total])).toEqual([
      ['Settled', 3000],
      ['Settled', 10480],
    ]);
  });

  it('a bank-slip refund is Pending in Vendure until the service reports it done, then Settled', async () => {
    const cart = await cartReadyToPay(env, `billet-refund-${kind}@example.com`);
    const session = await startPayment(env, { method: 'billet', document: CPF });
    await env.sandbox.controls.pay(session.invoiceId!);
    const paid = await settled(cart.id);
    const { refundOrder } = await env.admin.query(REFUND_ORDER, {
      input: {
        paymentId: paid.payments[0].id,
        amount: 2000,
        lines: [],
        shipping: 0,
        adjustment: 0,
        reason: 'damaged',
      },
    });
    expect(refundOrder).toMatchObject({ state: 'Pending', total: 2000 });
    expect(env.sandbox.controls.getInvoice(session.invoiceId!)!.statusCode).toBe(7);

    await env.sandbox.controls.completeRefund(session.invoiceId!);
    await waitFor(
      async () => (await adminOrder(env, cart.id)).payments[0].refunds[0]?.state === 'Settled',
      20_000,
      'refund settled',
    );
    const order = await adminOrder(env, cart.id);
    expect(order.payments[0].refunds).toEqual([expect.objectContaining({ state: 'Settled', total: 2000 })]);
    // Vendure's refunds add up to what the service refunded: no note about a refund made elsewhere.
    expect(notes(order).filter((n) => /refunded/.test(n))).toEqual([]);
  });

  it("a refund made at the service, outside Vendure, is written on the order: Vendure's refunds fall short", async () => {
    const cart = await cartReadyToPay(env, `panel-refund-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    await env.sandbox.controls.pay(session.invoiceId!);
    await settled(cart.id);
    const invoice = env.sandbox.controls.getInvoice(session.invoiceId!)!;
    // As the merchant would from the service's own panel: straight to the service, not through Vendure.
    const res = await fetch(`${env.sandbox.url}/invoices`, {
      method: 'PUT',
      headers: { Authorization: 'Bearer sandbox-token', 'Content-Type': 'application/json' },
      body: JSON.stringify({ payment: { id: invoice.id, invoice_id: invoice.invoiceId, amount: 25.5 } }),
    });
    expect(res.status).toBe(200);
    await waitFor(
      async () => notes(await adminOrder(env, cart.id)).some((n) => /refunded R\$ 25\.50/.test(n)),
      20_000,
      'refund note',
    );
    const order = await adminOrder(env, cart.id);
    expect(order.payments[0].refunds).toEqual([]);
    expect(notes(order)).toContainEqual(expect.stringMatching(/Vendure's refunds add up to R\$ 0\.00/));
  });

  it('the CPF given once is kept on the customer; an order with none at all is refused naming the field', async () => {
    // The first test's customer gave a CPF: the next order needs none.
    await cartReadyToPay(env, `pix-${kind}@example.com`);
    const again = await startPayment(env, { method: 'pix' });
    expect(env.sandbox.controls.getInvoice(again.invoiceId!)!.client.document).toBe('52998224725');

    await cartReadyToPay(env, `nodoc-${kind}@example.com`);
    await expect(startPayment(env, { method: 'pix' })).rejects.toThrow(
      /order\.customer\.document is required/,
    );
    await expect(startPayment(env, { method: 'pix', document: '111.111.111-11' })).rejects.toThrow(
      /order\.customer\.document is not a valid CPF or CNPJ/,
    );
  });

  it('a bank-slip order canceled in Vendure cancels its invoice at the service (6)', async () => {
    const cart = await cartReadyToPay(env, `billet-${kind}@example.com`);
    const session = await startPayment(env, { method: 'billet', document: CPF });
    expect(session.billet?.line).toMatch(/^\d{47}$/);
    expect(session.billet?.url).toMatch(/^http/);
    const { cancelOrder } = await env.admin.query(CANCEL_ORDER, {
      input: { orderId: cart.id, reason: 'customer gave up' },
    });
    expect(cancelOrder.state).toBe('Cancelled');
    await waitFor(
      () => env.sandbox.controls.getInvoice(session.invoiceId!)!.statusCode === 6,
      20_000,
      'status 6',
    );
  });

  it('switching from PIX to bank slip cancels the PIX invoice; each invoice has its own Payment', async () => {
    const cart = await cartReadyToPay(env, `switch-${kind}@example.com`);
    const pix = await startPayment(env, { method: 'pix', document: CPF });
    const sameAgain = await startPayment(env, { method: 'pix', document: CPF });
    expect(sameAgain.invoiceId).toBe(pix.invoiceId);
    const billet = await startPayment(env, { method: 'billet', document: CPF });
    expect(billet.invoiceId).not.toBe(pix.invoiceId);
    expect(env.sandbox.controls.getInvoice(pix.invoiceId!)!.statusCode).toBe(6);
    // The canceled attempt is on the order (while it still arranges payment: once paid, a late one is not added).
    await waitFor(async () => (await adminOrder(env, cart.id)).payments.length === 1, 20_000, 'declined PIX');

    await env.sandbox.controls.pay(billet.invoiceId!);
    const order = await settled(cart.id);
    expect(order.payments.map((p) => [p.transactionId, p.state]).sort()).toEqual(
      [
        [pix.invoiceId, 'Declined'],
        [billet.invoiceId, 'Settled'],
      ].sort(),
    );
  });

  it('a denied card declines: the order keeps arranging payment, the attempt is on it as a Declined payment', async () => {
    const cart = await cartReadyToPay(env, `denied-${kind}@example.com`);
    const session = await startCardPayment(env, TEST_CARDS.denied);
    await waitFor(
      async () => (await adminOrder(env, cart.id)).payments.length > 0,
      20_000,
      'declined payment',
    );
    const order = await adminOrder(env, cart.id);
    expect(order.state).toBe('ArrangingPayment');
    expect(order.payments).toEqual([
      expect.objectContaining({ state: 'Declined', transactionId: session.invoiceId }),
    ]);
  });

  it('paid with another amount than the order: the Payment waits in Authorized, noted, until a person settles it', async () => {
    const cart = await cartReadyToPay(env, `over-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    await env.sandbox.controls.pay(session.invoiceId!, { amountCents: session.amount + 100 });
    const held = await settled(cart.id, 'PaymentAuthorized');
    expect(held.payments).toEqual([
      expect.objectContaining({ state: 'Authorized', amount: session.amount + 100 }),
    ]);
    expect(notes(held)).toContainEqual(expect.stringMatching(/another amount than the order's/));
    const { settlePayment } = await env.admin.query(SETTLE_PAYMENT, { id: held.payments[0].id });
    expect(settlePayment).toMatchObject({ state: 'Settled' });
    expect((await settled(cart.id)).payments).toHaveLength(1);
  });

  /** A closed attempt of the order's, whose invoice lands at the service anyway (as one that timed out would). */
  async function lateInvoiceOf(holder: InvoiceRecord, attempt: number) {
    const repo = env.get(TransactionalConnection).rawConnection.getRepository(InvoiceRecord);
    const referrer = holder.referrer.replace(/-\d+$/, `-${attempt}`);
    await repo.insert({
      ...holder,
      ...{ gatewayId: null, gatewayUuid: null, gatewayInvoiceId: null, statusCode: null, statusText: null },
      id: randomUUID(),
      attempt,
      referrer,
      creationState: 'failed',
      openOrderId: null,
      failureReason: 'not created',
      statusTokenHash: null,
      previousTokenHash: null,
      version: 1,
    });
    const client = { name: 'Maria Silva', document: '52998224725', email: 'maria@example.com' };
    const line = {
      id: 'order',
      title: 'Order',
      quantity: 1,
      discountCents: 0,
      unitAmountCents: holder.amountCents,
    };
    return env.get(GatewayClient).createInvoice({
      client,
      payment: { method: 'pix', physical: false, id: holder.orderId, referrer, products: [line] },
    });
  }
  const sweepAndNotify = async () => {
    expect((await env.get(ReconciliationService).sweep()).error).toBeNull();
    await env.get(StatusChangeDispatcher).drain();
  };

  it("a duplicate invoice's changes do not move the order: no Payment for it; paid, a note says to refund it", async () => {
    const cart = await cartReadyToPay(env, `dup-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    const records = env.get(TransactionalConnection).rawConnection.getRepository(InvoiceRecord);
    const holder = await records.findOneByOrFail({ gatewayId: session.invoiceId! });

    // Unpaid, it is canceled as the duplicate of the order's invoice: no Declined Payment for it.
    const unpaid = await lateInvoiceOf(holder, 2);
    await sweepAndNotify();
    expect(env.sandbox.controls.getInvoice(unpaid.id)!.statusCode).toBe(6);
    expect((await adminOrder(env, cart.id)).payments).toEqual([]);

    // The order is paid; then another late invoice arrives paid: the order keeps its one Payment.
    await env.sandbox.controls.pay(session.invoiceId!);
    await settled(cart.id);
    const paid = await lateInvoiceOf(holder, 3);
    await env.sandbox.controls.pay(paid.id);
    await sweepAndNotify();
    expect(await records.findOneByOrFail({ gatewayId: paid.id })).toMatchObject({
      statusCode: 5,
      duplicateOf: holder.id,
    });
    const order = await settled(cart.id);
    expect(order.payments.map((p) => [p.transactionId, p.state])).toEqual([[session.invoiceId, 'Settled']]);
    expect(notes(order)).toContainEqual(
      expect.stringContaining(`the order follows ${session.invoiceId}; refund ${paid.id}`),
    );
  });

  it('a coupon reaches the invoice as the line discount Vendure prorated; the invoice total is the order total', async () => {
    const { createPromotion } = await env.admin.query(CREATE_PROMOTION, {
      input: {
        enabled: true,
        couponCode: `DESCONTO10-${kind}`,
        translations: [{ languageCode: 'en', name: '10% off' }],
        conditions: [],
        actions: [{ code: 'order_percentage_discount', arguments: [{ name: 'discount', value: '10' }] }],
      },
    });
    expect(createPromotion.id).toBeDefined();
    const cart = await cartReadyToPay(env, `coupon-${kind}@example.com`);
    const { applyCouponCode } = await env.shop.query(APPLY_COUPON, { code: `DESCONTO10-${kind}` });
    // 2 × R$ 59,90 − 10 % (R$ 11,98) + R$ 15,00 shipping.
    expect(applyCouponCode.totalWithTax).toBe(12282);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    expect(session.amount).toBe(12282);
    const invoice = env.sandbox.controls.getInvoice(session.invoiceId!)!;
    expect(invoice.grossCents).toBe(12282);
    expect(invoice.discountCents).toBe(1198);
    expect(invoice.products).toEqual([
      expect.objectContaining({ qnt: 2, amountCents: 5990, discountCents: 1198 }),
    ]);
    expect((await adminOrder(env, cart.id)).state).toBe('ArrangingPayment');
  });

  it("a payment option the store owner does not offer (the method's arguments in the admin) is refused", async () => {
    const { paymentMethods } = await env.admin.query(PAYMENT_METHODS);
    const method = paymentMethods.items.find(
      (m: { code: string; handler: { code: string } }) => m.handler.code === 'invoice-payments',
    );
    const setOffered = (value: string[]) =>
      env.admin.query(UPDATE_PAYMENT_METHOD, {
        input: {
          id: method.id,
          handler: {
            code: 'invoice-payments',
            arguments: [{ name: 'methods', value: JSON.stringify(value) }],
          },
        },
      });
    await setOffered(['pix', 'billet']);
    try {
      await cartReadyToPay(env, `offered-${kind}@example.com`);
      await expect(
        startPayment(env, {
          method: 'card',
          document: CPF,
          card: { token: 'x', expiry: '12/30', holderName: 'M' },
        }),
      ).rejects.toThrow(/card is not offered \(offered: pix, billet\)/);
    } finally {
      await setOffered(['pix', 'billet', 'card']);
    }
  });

  it("an order Vendure will not move to ArrangingPayment (no customer yet) is refused with Vendure's reason", async () => {
    await env.sandbox.controls.waitForDeliveries();
    const before = env.sandbox.controls.deliveries().length;
    await env.shop.asAnonymousUser();
    await env.shop.query(ADD_ITEM, { id: env.variantId });
    await expect(startPayment(env, { method: 'pix', document: CPF })).rejects.toThrow(/customer/i);
    // No invoice was created (each creation sends an invoice.created delivery).
    await env.sandbox.controls.waitForDeliveries();
    expect(env.sandbox.controls.deliveries().length).toBe(before);
  });

  it('a forged delivery (token the service does not know) is only a trigger: it changes nothing', async () => {
    const cart = await cartReadyToPay(env, `forged-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    const created = deliveryOf(session.invoiceId!, 1);
    const body = structuredClone(created.body) as unknown as { invoice: { status: Record<string, unknown> } };
    body.invoice.status = { ...body.invoice.status, code: 5, text: 'paid' };
    const headers = {
      ...created.headers,
      Webhook: [String((created.headers.Webhook as string[])[0]), btoa(':forged')],
    };
    // It names this store's open invoice: taken (200) and looked up; the service says 1, so nothing moves.
    const res = await post(headers, body);
    expect(res.status).toBe(200);
    // Past Express' 100 KB (Vendure's parser) but within webhooks.bodyLimitBytes (256 KB): the route reads it.
    const past100k = await post(headers, { ...body, padding: 'x'.repeat(150_000) });
    expect(past100k.status).toBe(200);
    // Past the module's limit: 413, whether the length is declared or the body comes in chunks (Vendure's own
    // exception filter would have answered its parser's error 500).
    const large = await post(headers, { ...body, padding: 'x'.repeat(300_000) });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({
      statusCode: 413,
      message: expect.stringMatching(/262144 bytes/),
    });
    const chunked = await postChunked(
      env.webhookUrl,
      headers,
      JSON.stringify({ ...body, padding: 'x'.repeat(300_000) }),
    );
    expect(chunked).toMatchObject({ status: 413, body: expect.stringMatching(/262144 bytes/) });
    await env.get(WebhookInboxProcessor).drain();
    const order = await adminOrder(env, cart.id);
    expect(order.state).toBe('ArrangingPayment');
    expect(order.payments).toHaveLength(0);
    expect(env.sandbox.controls.getInvoice(session.invoiceId!)!.statusCode).toBe(1);
  });
});

/** A POST whose body comes in chunks with no declared length (as a proxy may forward it). */
function postChunked(
  url: string,
  headers: Record<string, string | string[]>,
  text: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (let i = 0; i < text.length; i += 16_384) req.write(text.slice(i, i + 16_384));
    req.end();
  });
}
