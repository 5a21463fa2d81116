import { Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { OrderPaymentPort, PaymentStatusChange } from '../../src/index';
import type { DemoOrder, OrderPaymentEvent } from './order.entity';
import { OrdersService } from './orders.service';

/**
 * The store's side of the payment module: the module calls it once per applied status change of an invoice (in
 * order per invoice, retried when it throws), and it moves the order. This is the integration point a host writes.
 *
 * - Every change is kept on the order (`payment_events`), once: a retried delivery is recognised and skipped.
 * - Only the order's current payment attempt moves `payment_status`; a change of an older attempt (say, the PIX
 *   invoice canceled when the customer switched to card) is kept but does not move the order.
 * - Money arriving for a canceled attempt (`alert: paid_after_cancel`) puts the order in `requires_action`.
 */
@Injectable()
export class OrderPaymentAdapter implements OrderPaymentPort {
  private readonly logger = new Logger(OrderPaymentAdapter.name);

  constructor(private readonly orders: OrdersService) {}

  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    const at = new Date(change.occurredAt).toISOString();
    try {
      await this.orders.mutate(change.orderId, (order) => {
        const seen = order.paymentEvents.some(
          (e) =>
            e.invoice_record_id === change.invoiceRecordId && e.code === change.current.code && e.at === at,
        );
        if (seen) return false;
        // The first report of the order's first attempt may come before the storefront call that created it has
        // saved the attempt on the order: adopt it.
        order.invoiceRecordId ??= change.invoiceRecordId;
        const current = order.invoiceRecordId === change.invoiceRecordId;
        const event: OrderPaymentEvent = {
          at,
          invoice_record_id: change.invoiceRecordId,
          method: change.method,
          code: change.current.code,
          text: change.current.text,
          payment_status: change.current.orderPaymentStatus,
          source: change.source,
          ...(current ? {} : { stale: true }),
          ...(change.alert ? { alert: change.alert } : {}),
        };
        order.paymentEvents = [...order.paymentEvents, event];
        if (current) applyPaymentStatus(order, change.current.orderPaymentStatus);
        if (change.alert === 'paid_after_cancel') order.status = 'requires_action';
      });
    } catch (err) {
      // An order this store does not have can never be moved: retrying would block the invoice's later changes.
      if (err instanceof NotFoundException) {
        this.logger.warn(`payment change for unknown order ${change.orderId} ignored`);
        return;
      }
      throw err;
    }
  }
}

/** Sets the order's payment status, and what follows from it for the order itself. */
export function applyPaymentStatus(order: DemoOrder, status: DemoOrder['paymentStatus']): void {
  order.paymentStatus = status;
  if (status === 'refunded') order.refundedTotal = Math.max(order.refundedTotal, order.total);
  if (order.status === 'pending' && order.fulfillmentStatus === 'shipped' && status === 'captured') {
    order.status = 'completed';
  }
}
