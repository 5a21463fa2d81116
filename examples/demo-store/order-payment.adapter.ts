import { Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { InvoiceRecord, OrderPaymentPort, PaymentStatusChange } from '../../src/index';
import type { DemoOrder, OrderPaymentEvent } from './order.entity';
import { OrdersService } from './orders.service';

/**
 * The store's side of the payment module: the module calls it once per applied status change of an invoice (in
 * order per invoice, retried when it throws), and it moves the order. This is the integration point a host writes.
 *
 * - Every change is kept on the order (`payment_events`), once: a retried delivery is recognised and skipped.
 * - Only the order's latest payment attempt moves `payment_status`; a change of an older attempt (say, the PIX
 *   invoice canceled when the customer switched to card) is kept, marked `stale`, and does not move the order.
 *   Which attempt is the latest comes from the module's invoice records, not from the order: the first reports of
 *   a new attempt may arrive before the storefront call that created it has returned.
 * - Money arriving for a canceled attempt (`alert: paid_after_cancel`) puts the order in `requires_action`.
 */
@Injectable()
export class OrderPaymentAdapter implements OrderPaymentPort {
  private readonly logger = new Logger(OrderPaymentAdapter.name);

  constructor(
    private readonly orders: OrdersService,
    @InjectRepository(InvoiceRecord) private readonly invoices: Repository<InvoiceRecord>,
  ) {}

  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    const at = new Date(change.occurredAt).toISOString();
    const latest = await this.invoices.findOne({
      where: { orderId: change.orderId },
      order: { attempt: 'DESC' },
      select: { id: true },
    });
    const latestId = latest?.id ?? change.invoiceRecordId;
    try {
      await this.orders.mutate(change.orderId, (order) => {
        const seen = order.paymentEvents.some(
          (e) =>
            e.invoice_record_id === change.invoiceRecordId && e.code === change.current.code && e.at === at,
        );
        if (seen) return false;
        // The order follows its latest attempt, or an earlier attempt's invoice that was paid (a late invoice the
        // module adopted); never an invoice the module marked as a duplicate of another.
        const paid = change.current.sessionStatus === 'captured' && !change.alert;
        const current = !change.duplicateOf && (latestId === change.invoiceRecordId || paid);
        if (current) order.invoiceRecordId = paid ? change.invoiceRecordId : latestId;
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
