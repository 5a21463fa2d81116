import {
  HistoryService,
  Logger,
  Order,
  type OrderService,
  type Payment,
  type PaymentMethod,
  type PaymentMethodService,
  type RequestContext,
  type RequestContextService,
  type TransactionalConnection,
} from '@vendure/core';
import type { PaymentMethod as InvoiceMethod } from '../gateway/types';
import { PAYMENT_METHODS } from '../options/checkout.options';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { INVOICE_PAYMENTS_HANDLER_CODE, LOG_CONTEXT } from './constants';

const DEFAULT_CHANNEL_CODE = '__default_channel__';

/** An admin context in the order's own (seller) channel, for work outside a request; `null` for no such order. */
export async function orderContext(
  connection: TransactionalConnection,
  contexts: RequestContextService,
  orderId: string,
): Promise<RequestContext | null> {
  if (!/^[\w-]{1,64}$/.test(orderId)) return null;
  const order = await connection.rawConnection
    .getRepository(Order)
    .findOne({ where: { id: orderId }, relations: { channels: true } });
  if (!order) return null;
  const channel = order.channels.find((c) => c.code !== DEFAULT_CHANNEL_CODE) ?? order.channels[0];
  // By token: the service loads the channel whole (its tax zones among it).
  return contexts.create({ apiType: 'admin', channelOrToken: channel.token });
}

/** Writes what needs a person on the order's history (admin only), where the store's staff look, and in the log. */
export async function addOrderNote(
  history: HistoryService,
  ctx: RequestContext,
  orderId: string,
  note: string,
): Promise<void> {
  Logger.warn(`order ${orderId}: ${note}`, LOG_CONTEXT);
  // `ORDER_NOTE` is HistoryEntryType's value; the enum lives in @vendure/common, not re-exported by @vendure/core.
  await history.createHistoryEntryForOrder(
    { ctx, orderId, type: 'ORDER_NOTE' as never, data: { note } as never },
    false,
  );
}

/** The invoice record of that id (a Payment's `metadata.invoiceRecordId`, untrusted), if any. */
export async function recordOf(
  connection: TransactionalConnection,
  id: unknown,
): Promise<InvoiceRecord | null> {
  if (typeof id !== 'string' || id === '') return null;
  return connection.rawConnection.getRepository(InvoiceRecord).findOneBy({ id });
}

/** The order's Payment that stands for the invoice record `invoiceRecordId`, if any. */
export async function paymentOf(
  orders: OrderService,
  ctx: RequestContext,
  orderId: string,
  invoiceRecordId: string,
): Promise<Payment | undefined> {
  return (await orders.getOrderPayments(ctx, orderId)).find(
    (p) => (p.metadata as { invoiceRecordId?: unknown } | null)?.invoiceRecordId === invoiceRecordId,
  );
}

/** The channel's enabled payment method that uses the `invoice-payments` handler, if any. */
export async function findInvoicePaymentMethod(
  methods: PaymentMethodService,
  ctx: RequestContext,
): Promise<PaymentMethod | undefined> {
  const { items } = await methods.findAll(ctx, { filter: { enabled: { eq: true } } });
  return items.find((m) => m.handler.code === INVOICE_PAYMENTS_HANDLER_CODE);
}

/** The options the store owner offers with this payment method (its `methods` argument; all when none chosen). */
export function offeredMethods(method: PaymentMethod): InvoiceMethod[] {
  const raw = method.handler.args.find((a) => a.name === 'methods')?.value;
  if (!raw) return [...PAYMENT_METHODS];
  try {
    const listed: unknown = JSON.parse(raw);
    if (Array.isArray(listed) && listed.length === 0) return [...PAYMENT_METHODS];
    if (Array.isArray(listed)) return PAYMENT_METHODS.filter((m) => listed.includes(m));
  } catch {
    // Not JSON: a single value.
  }
  return PAYMENT_METHODS.filter((m) => m === raw);
}
