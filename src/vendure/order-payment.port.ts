import { Injectable } from '@nestjs/common';
import {
  HistoryService,
  isGraphQlErrorResult,
  Logger,
  OrderService,
  PaymentMethodService,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import type { OrderPaymentPort, PaymentStatusChange } from '../core/ports';
import { InvoiceStatusCode } from '../domain/status-table';
import { centsToDecimalString } from '../gateway/money';
import { INVOICE_PAYMENTS_HANDLER_CODE, LOG_CONTEXT, paymentStateOf } from './constants';
import { addOrderNote, findInvoicePaymentMethod, orderContext, paymentOf, recordOf } from './order-access';

/**
 * The module's order port for Vendure: each status change moves the order's Payment for the invoice (docs/vendure.md,
 * "What the store sees"); a repeat changes nothing. Business refusals are noted on the order, not thrown (a throw is
 * retried and would hold back the invoice's later changes); database errors are thrown, and retried.
 */
@Injectable()
export class VendureOrderPaymentPort implements OrderPaymentPort {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly orders: OrderService,
    private readonly history: HistoryService,
    private readonly contexts: RequestContextService,
    private readonly methods: PaymentMethodService,
  ) {}

  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    // The module logs no host error text: the reason is for the store's logs.
    await this.apply(change).catch((err: Error) => {
      Logger.error(
        `order ${change.orderId}: status ${change.current.code} not applied: ${err.message}`,
        LOG_CONTEXT,
      );
      throw err;
    });
  }

  private async apply(change: PaymentStatusChange): Promise<void> {
    const ctx = await orderContext(this.connection, this.contexts, change.orderId);
    if (!ctx) {
      Logger.warn(`payment change for unknown order ${change.orderId} ignored`, LOG_CONTEXT);
      return;
    }
    const code = change.current.code;
    const invoice = change.gatewayId ?? change.invoiceRecordId;
    // A duplicate's changes do not move the order (core/ports.ts): no Payment for it; its payment is noted.
    if (change.duplicateOf) return this.noteDuplicate(ctx, change, invoice);
    // Money taken for another amount reaches the port as `requires_more`, never captured.
    const state = paymentStateOf(code, change.current.sessionStatus === 'requires_more');
    // Looked at first outside a transaction: a report that changes nothing (a refund, a repeated delivery) opens
    // none, so nothing is written while Vendure may itself be in the middle of the operation that caused it.
    if (
      state &&
      (await paymentOf(this.orders, ctx, change.orderId, change.invoiceRecordId))?.state !== state
    ) {
      const problem = await this.connection.withTransaction(ctx, (tx) =>
        this.applyPayment(tx, change, state),
      );
      if (problem) await this.note(ctx, change, `Invoice ${invoice}: ${problem}`);
    }
    const refunded = code === InvoiceStatusCode.PartiallyRefunded || code === InvoiceStatusCode.Refunded;
    if (refunded) await this.matchRefunds(ctx, change);
    if (code === InvoiceStatusCode.Contested)
      await this.note(
        ctx,
        change,
        `Invoice ${invoice} is contested at the payment service (status ${code}).`,
      );
    if (change.alert === 'amount_mismatch') {
      const held = 'its Payment waits in Authorized: settle it if the amount is right, or refund it';
      await this.note(
        ctx,
        change,
        `Invoice ${invoice} was paid with another amount than the order's; ${held}.`,
      );
    }
    if (change.alert === 'paid_after_cancel') {
      const returned = 'the money must be returned to the customer';
      await this.note(ctx, change, `Invoice ${invoice} was paid after it was canceled: ${returned}.`);
    }
  }

  /** Adds, settles or declines the invoice's Payment; returns a problem to write on the order, if any. */
  private async applyPayment(
    ctx: RequestContext,
    change: PaymentStatusChange,
    state: 'Authorized' | 'Settled' | 'Declined',
  ): Promise<string | null> {
    const order = await this.orders.findOne(ctx, change.orderId, []);
    if (!order) return null;
    const payment = await paymentOf(this.orders, ctx, change.orderId, change.invoiceRecordId);
    if (payment) {
      // Only a Payment still open moves: to Settled or Declined.
      if (state === 'Authorized' || !['Authorized', 'Created'].includes(payment.state)) return null;
      const moved = await (state === 'Settled'
        ? this.orders.settlePayment(ctx, payment.id)
        : this.orders.cancelPayment(ctx, payment.id));
      return isGraphQlErrorResult(moved) ? moved.message : null;
    }
    if (state === 'Declined') {
      // Only an order still arranging payment shows the failed attempt; a canceled or paid order needs nothing.
      if (order.state !== 'ArrangingPayment') return null;
    } else if (order.state === 'AddingItems') {
      // Money arrived while the customer was back at the cart: the order must take it.
      const moved = await this.orders.transitionToState(ctx, order.id, 'ArrangingPayment');
      if (isGraphQlErrorResult(moved))
        return `paid, but the order could not take the payment: ${moved.message}`;
    }
    const result = await this.orders.addPaymentToOrder(ctx, order.id, {
      method: await this.methodCode(ctx),
      metadata: { invoiceRecordId: change.invoiceRecordId },
    });
    if (!isGraphQlErrorResult(result) || state === 'Declined') return null;
    return `${change.current.text ?? state}, but the order could not take the payment: ${result.message}`;
  }

  /** Settles the Payment's pending refunds, notes one Vendure does not know; not for Vendure's own `refundOrder`. */
  private async matchRefunds(ctx: RequestContext, change: PaymentStatusChange): Promise<void> {
    if (change.source === 'operation') return;
    const payment = await paymentOf(this.orders, ctx, change.orderId, change.invoiceRecordId);
    if (!payment) return;
    for (const refund of payment.refunds ?? []) {
      if (refund.state !== 'Pending') continue;
      // Its answer was lost: the module's ledger decides it, not a report that may stem from another refund.
      if ((refund.metadata as { confirming?: unknown } | null)?.confirming) continue;
      const transactionId = payment.transactionId ?? refund.id.toString();
      await this.connection.withTransaction(ctx, (tx) =>
        this.orders.settleRefund(tx, { id: refund.id, transactionId }),
      );
    }
    const record = await recordOf(this.connection, change.invoiceRecordId);
    const known = (payment.refunds ?? []).reduce((sum, r) => sum + (r.state === 'Failed' ? 0 : r.total), 0);
    if (record && record.refundedCents > known) {
      await this.note(
        ctx,
        change,
        `Invoice ${change.gatewayId}: the payment service refunded R$ ${centsToDecimalString(record.refundedCents)}, ` +
          `Vendure's refunds add up to R$ ${centsToDecimalString(known)}.`,
      );
    }
  }

  /** A duplicate paid: the order keeps the Payment of the invoice it follows; the duplicate's money goes back. */
  private async noteDuplicate(
    ctx: RequestContext,
    change: PaymentStatusChange,
    invoice: string,
  ): Promise<void> {
    if (change.current.code !== InvoiceStatusCode.Paid) return;
    const kept = await recordOf(this.connection, change.duplicateOf ?? '');
    const follows = kept?.gatewayId ?? change.duplicateOf;
    await this.note(
      ctx,
      change,
      `Invoice ${invoice} was paid too, as a duplicate of invoice ${follows}: the order follows ${follows}; ` +
        `refund ${invoice} (it has no Payment on this order).`,
    );
  }

  /** None: thrown, so the module retries until the store owner creates one (the change is kept). */
  private async methodCode(ctx: RequestContext): Promise<string> {
    const method = await findInvoicePaymentMethod(this.methods, ctx);
    if (!method)
      throw new Error(
        `channel ${ctx.channel.code} has no enabled payment method with the ${INVOICE_PAYMENTS_HANDLER_CODE} handler`,
      );
    return method.code;
  }

  private note(ctx: RequestContext, change: PaymentStatusChange, note: string): Promise<void> {
    return addOrderNote(this.history, ctx, change.orderId, note);
  }
}
