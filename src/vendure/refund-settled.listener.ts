import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import {
  HistoryService,
  isGraphQlErrorResult,
  Logger,
  OrderService,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import { InvoicePaymentsEvents, type RefundSettled } from '../core/events';
import { centsToDecimalString } from '../gateway/money';
import { LOG_CONTEXT } from './constants';
import { addOrderNote, orderContext, paymentOf, recordOf } from './order-access';

/**
 * Settles the Vendure Refund left `Pending` while the module confirmed a refund whose answer was lost (the
 * handler's `metadata: { refundId, confirming: true }`), when the module's ledger decides it: made → `Settled`;
 * not made → `Failed`, with a note on the order. Runs after the ledger row moved, outside any module transaction;
 * only Vendure's own calls run in the transaction it opens.
 */
@Injectable()
export class RefundSettledListener {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly contexts: RequestContextService,
    private readonly orders: OrderService,
    private readonly history: HistoryService,
  ) {}

  @OnEvent(InvoicePaymentsEvents.RefundSettled)
  async onRefundSettled(event: RefundSettled): Promise<void> {
    try {
      await this.apply(event);
    } catch (err) {
      Logger.error(`refund ${event.refundId} settled ${event.state}: ${(err as Error).message}`, LOG_CONTEXT);
    }
  }

  private async apply(event: RefundSettled): Promise<void> {
    const record = await recordOf(this.connection, event.invoiceRecordId);
    const ctx = record && (await orderContext(this.connection, this.contexts, record.orderId));
    if (!record || !ctx) return;
    const payment = paymentOf(await this.orders.getOrderPayments(ctx, record.orderId), record.id);
    const refund = payment?.refunds?.find(
      (r) =>
        r.state === 'Pending' && (r.metadata as { refundId?: unknown } | null)?.refundId === event.refundId,
    );
    // None: the handler's own read-back decided it (its Refund is Settled or Failed already), or not a Vendure refund.
    if (!payment || !refund) return;
    if (event.state === 'succeeded') {
      const transactionId = payment.transactionId ?? event.gatewayId ?? refund.id.toString();
      await this.connection.withTransaction(ctx, (tx) =>
        this.orders.settleRefund(tx, { id: refund.id, transactionId }),
      );
      return;
    }
    const moved = await this.connection.withTransaction(ctx, (tx) =>
      this.orders.transitionRefundToState(tx, refund.id, 'Failed'),
    );
    if (isGraphQlErrorResult(moved)) throw new Error(moved.message);
    await addOrderNote(
      this.history,
      ctx,
      record.orderId,
      `Refund of R$ ${centsToDecimalString(event.amountCents)} (invoice ${event.gatewayId ?? record.id}) was not ` +
        `made at the payment service: nothing was refunded (${event.reason ?? 'not made'}).`,
    );
  }
}
