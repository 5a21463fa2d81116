import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import {
  EventBus,
  Fulfillment,
  FulfillmentStateTransitionEvent,
  HistoryService,
  isGraphQlErrorResult,
  Logger,
  OrderService,
  OrderStateTransitionEvent,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';
import { IsNull, Not } from 'typeorm';
import type { Subscription } from 'rxjs';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { InvoicePaymentsEvents, type RefundSettled } from '../core/events';
import { centsToDecimalString } from '../gateway/money';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { TrackingService } from '../shipping/tracking.service';
import { LOG_CONTEXT } from './constants';
import { addOrderNote, orderContext, paymentOf, recordOf } from './order-access';

/**
 * Vendure's order events (shipped: the tracking code; canceled: the open invoice) and the module's `RefundSettled`;
 * see docs/vendure.md. Vendure publishes after its transaction commits, so none is held while the service is called.
 */
@Injectable()
export class OrderEventsSubscriber implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly eventBus: EventBus,
    private readonly connection: TransactionalConnection,
    private readonly tracking: TrackingService,
    private readonly payments: InvoicePaymentProvider,
    private readonly history: HistoryService,
    private readonly contexts: RequestContextService,
    private readonly orders: OrderService,
  ) {}

  onApplicationBootstrap(): void {
    this.subscriptions.push(
      this.eventBus.ofType(FulfillmentStateTransitionEvent).subscribe((event) => {
        if (event.toState === 'Shipped')
          void this.guard('shipment', () => this.onShipped(event.ctx, event.fulfillment));
      }),
      this.eventBus.ofType(OrderStateTransitionEvent).subscribe((event) => {
        if (event.toState === 'Cancelled')
          void this.guard('cancellation', () => this.onCancelled(event.ctx, String(event.order.id)));
      }),
    );
  }

  onApplicationShutdown(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }

  /** A tracking code the module refuses (an unpaid invoice, a bad URL) is written on the order. */
  async onShipped(ctx: RequestContext, shipped: Fulfillment): Promise<void> {
    const fulfillment = await this.connection.rawConnection
      .getRepository(Fulfillment)
      .findOne({ where: { id: shipped.id }, relations: { orders: true } });
    const code = fulfillment?.trackingCode?.trim();
    if (!fulfillment || !code) return;
    const url = (fulfillment.customFields as { trackingUrl?: unknown } | undefined)?.trackingUrl;
    const invoices = this.connection.rawConnection.getRepository(InvoiceRecord);
    for (const order of fulfillment.orders) {
      const orderId = String(order.id);
      // Orders paid some other way are none of the module's business.
      if (!(await invoices.exists({ where: { orderId } }))) continue;
      await this.tracking
        .recordShipment({
          orderId,
          trackingCode: code,
          carrier: fulfillment.method || undefined,
          trackingUrl: typeof url === 'string' && url.trim() !== '' ? url : undefined,
        })
        .catch((err: Error) => {
          const note = `Tracking code ${code} not sent to the payment service: ${err.message}`;
          return addOrderNote(this.history, ctx, orderId, note);
        });
    }
  }

  async onCancelled(ctx: RequestContext, orderId: string): Promise<void> {
    const open = await this.connection.rawConnection
      .getRepository(InvoiceRecord)
      .find({ where: { orderId, openOrderId: Not(IsNull()) } });
    for (const record of open)
      await this.payments.cancelPayment({ data: { invoiceRecordId: record.id } }).catch((err: Error) => {
        const note = `Order canceled, but invoice ${record.gatewayId ?? record.id} was not: ${err.message}`;
        return addOrderNote(this.history, ctx, orderId, note);
      });
  }

  @OnEvent(InvoicePaymentsEvents.RefundSettled)
  async onRefundSettled(event: RefundSettled): Promise<void> {
    await this.guard(`refund ${event.refundId} settled ${event.state}`, () => this.settleRefund(event));
  }

  private async settleRefund(event: RefundSettled): Promise<void> {
    const record = await recordOf(this.connection, event.invoiceRecordId);
    const ctx = record && (await orderContext(this.connection, this.contexts, record.orderId));
    if (!record || !ctx) return;
    const payment = await paymentOf(this.orders, ctx, record.orderId, record.id);
    const refund = payment?.refunds?.find(
      (r) =>
        r.state === 'Pending' && (r.metadata as { refundId?: unknown } | null)?.refundId === event.refundId,
    );
    // None: the handler's own read-back decided it (its Refund is Settled or Failed already), or not a Vendure refund.
    if (!payment || !refund) return;
    const transactionId = payment.transactionId ?? event.gatewayId ?? refund.id.toString();
    const moved = await this.connection.withTransaction(ctx, (tx) =>
      event.state === 'succeeded'
        ? this.orders.settleRefund(tx, { id: refund.id, transactionId })
        : this.orders.transitionRefundToState(tx, refund.id, 'Failed'),
    );
    if (event.state === 'succeeded') return;
    if (isGraphQlErrorResult(moved)) throw new Error(moved.message);
    await addOrderNote(
      this.history,
      ctx,
      record.orderId,
      `Refund of R$ ${centsToDecimalString(event.amountCents)} (invoice ${event.gatewayId ?? record.id}) was not ` +
        `made at the payment service: nothing was refunded (${event.reason ?? 'not made'}).`,
    );
  }

  private guard(what: string, work: () => Promise<void>): Promise<void> {
    return work().catch((err: Error) => Logger.error(`${what} not handled: ${err.message}`, LOG_CONTEXT));
  }
}
