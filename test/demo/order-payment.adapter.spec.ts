import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { DEMO_STORE_MIGRATIONS } from '../../examples/demo-store/migrations';
import { OrderPaymentAdapter } from '../../examples/demo-store/order-payment.adapter';
import { DemoOrder } from '../../examples/demo-store/order.entity';
import { OrdersService } from '../../examples/demo-store/orders.service';
import {
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  InvoiceRecord,
  PaymentStatusChange,
  statusRow,
} from '../../src/index';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

describeEachDatabase('demo store order port', (kind) => {
  let db: TestDatabase;
  let orders: OrdersService;
  let adapter: OrderPaymentAdapter;

  beforeAll(async () => {
    db = await openTestDatabase(kind, {
      entities: [...INVOICE_PAYMENTS_ENTITIES, DemoOrder],
      migrations: [...INVOICE_PAYMENTS_MIGRATIONS, ...DEMO_STORE_MIGRATIONS],
    });
    orders = new OrdersService(db.dataSource.getRepository(DemoOrder));
    adapter = new OrderPaymentAdapter(orders, db.dataSource.getRepository(InvoiceRecord));
  });
  afterAll(async () => db.destroy());

  async function newOrder(): Promise<DemoOrder> {
    return orders.create({
      items: [{ product_id: 'prod_ebook', quantity: 1 }],
      customer: { first_name: 'Ana', last_name: 'Costa', document: '52998224725' },
    });
  }

  async function attempt(orderId: string, n: number, method: 'pix' | 'card' = 'pix'): Promise<string> {
    const id = randomUUID();
    const now = new Date();
    await db.dataSource.getRepository(InvoiceRecord).insert({
      id,
      orderId,
      openOrderId: null,
      attempt: n,
      referrer: `${orderId}-${n}`,
      creationState: 'created',
      method,
      currency: 'BRL',
      amountCents: 1990,
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  function change(
    orderId: string,
    invoiceRecordId: string,
    code: number,
    extra: Partial<PaymentStatusChange> = {},
  ) {
    const row = statusRow(code)!;
    return {
      orderId,
      invoiceRecordId,
      gatewayId: null,
      method: 'pix',
      previous: null,
      current: { code, text: null, sessionStatus: row.session, orderPaymentStatus: row.order },
      source: 'webhook',
      occurredAt: new Date(Date.now() + code),
      ...extra,
    } as PaymentStatusChange;
  }

  it('moves the order with its latest attempt and records each change once, however often it is delivered', async () => {
    const order = await newOrder();
    const first = await attempt(order.id, 1);
    const paid = change(order.id, first, 5);
    await adapter.onPaymentStatusChanged(change(order.id, first, 1));
    await adapter.onPaymentStatusChanged(paid);
    await adapter.onPaymentStatusChanged(paid);
    const after = await orders.get(order.id);
    expect(after.paymentStatus).toBe('captured');
    expect(after.invoiceRecordId).toBe(first);
    expect(after.paymentEvents.map((e) => [e.code, e.payment_status, e.source])).toEqual([
      [1, 'awaiting', 'webhook'],
      [5, 'captured', 'webhook'],
    ]);
  });

  it('keeps an older attempt’s change as stale without moving the order', async () => {
    const order = await newOrder();
    const old = await attempt(order.id, 1);
    const latest = await attempt(order.id, 2, 'card');
    await adapter.onPaymentStatusChanged(change(order.id, latest, 1, { method: 'card' }));
    await adapter.onPaymentStatusChanged(change(order.id, old, 6));
    const after = await orders.get(order.id);
    expect(after.paymentStatus).toBe('awaiting');
    expect(after.invoiceRecordId).toBe(latest);
    expect(after.paymentEvents.map((e) => [e.code, !!e.stale])).toEqual([
      [1, false],
      [6, true],
    ]);
  });

  it('flags money that arrived for a canceled attempt for a person', async () => {
    const order = await newOrder();
    const old = await attempt(order.id, 1);
    await attempt(order.id, 2);
    await adapter.onPaymentStatusChanged(change(order.id, old, 5, { alert: 'paid_after_cancel' }));
    const after = await orders.get(order.id);
    expect(after.status).toBe('requires_action');
    expect(after.paymentStatus).toBe('not_paid');
    expect(after.paymentEvents[0]).toMatchObject({ code: 5, stale: true, alert: 'paid_after_cancel' });
  });

  it('ignores a change for an order the store does not have (instead of blocking the invoice forever)', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await expect(
        adapter.onPaymentStatusChanged(change('order_gone', randomUUID(), 5)),
      ).resolves.toBeUndefined();
      expect(warn).toHaveBeenCalledWith('payment change for unknown order order_gone ignored');
    } finally {
      warn.mockRestore();
    }
  });

  it('loses no change when many land on one order at once (optimistic lock, retried)', async () => {
    const order = await newOrder();
    const id = await attempt(order.id, 1);
    const base = Date.now();
    const codes = [1, 2, 3, 4, 5, 6, 7, 8];
    await Promise.all(
      codes.map((code) =>
        adapter.onPaymentStatusChanged(change(order.id, id, code, { occurredAt: new Date(base + code) })),
      ),
    );
    const after = await orders.get(order.id);
    expect(after.paymentEvents.map((e) => e.code).sort((a, b) => a - b)).toEqual(codes);
    expect(after.version).toBe(1 + codes.length);
  });
});
