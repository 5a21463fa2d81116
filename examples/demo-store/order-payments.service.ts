import { BadRequestException, ConflictException, Injectable } from '@nestjs/common';
import {
  CheckoutOrder,
  InvoicePaymentProvider,
  InvoicePaymentSessionData,
  OpenInvoiceConflictError,
  OrderNotPaidError,
  ShipmentValidationError,
  statusRow,
  TrackingService,
} from '../../src/index';
import type { PayOrderDto, RefundOrderDto, ShipOrderDto } from './order.dto';
import type { DemoOrder } from './order.entity';
import { applyPaymentStatus } from './order-payment.adapter';
import { OrdersService } from './orders.service';

/** The module's shipment fields → the ship body's. */
const SHIPMENT_FIELDS: Record<string, string> = {
  trackingCode: 'tracking_code',
  carrier: 'carrier',
  trackingUrl: 'tracking_url',
};

const PAID: readonly DemoOrder['paymentStatus'][] = ['authorized', 'captured', 'partially_refunded'];

/**
 * What the store asks of the payment module: start a payment, post a shipment's tracking code, refund, cancel.
 * Statuses come back through the order port ({@link OrderPaymentAdapter}); these calls only record what the
 * operation itself answered.
 */
@Injectable()
export class OrderPaymentsService {
  constructor(
    private readonly orders: OrdersService,
    private readonly payments: InvoicePaymentProvider,
    private readonly tracking: TrackingService,
  ) {}

  /** Starts (or resumes) the order's payment; switching method cancels the open invoice and issues another. */
  async pay(
    id: string,
    dto: PayOrderDto,
    customerIp?: string,
  ): Promise<{ order: DemoOrder; session: InvoicePaymentSessionData }> {
    const order = await this.orders.get(id);
    if (order.status === 'canceled') throw new ConflictException(`order ${id} is canceled`);
    if (PAID.includes(order.paymentStatus) || order.paymentStatus === 'refunded') {
      throw new ConflictException(`order ${id} is already paid`);
    }
    const data = {
      order: toCheckoutOrder(order, customerIp),
      method: dto.method,
      card: dto.card,
      installments: dto.installments,
    };
    let session: InvoicePaymentSessionData;
    try {
      session = (
        await this.payments.initiatePayment({ amount: order.total, currency_code: order.currencyCode, data })
      ).data;
    } catch (err) {
      if (!(err instanceof OpenInvoiceConflictError)) throw err;
      // The customer changed their mind (another method): the module replaces the open invoice.
      session = (
        await this.payments.updatePayment({
          amount: order.total,
          currency_code: order.currencyCode,
          data: { invoiceRecordId: err.invoiceRecordId, ...data },
        })
      ).data;
    }
    const saved = await this.orders.mutate(id, (o) => {
      o.invoiceRecordId = session.invoiceRecordId;
      o.paymentMethod = session.method;
      // The order port may already have reported this attempt (a card is approved within milliseconds): its last
      // report wins over the status the creation answered.
      const reported = o.paymentEvents.filter((e) => e.invoice_record_id === session.invoiceRecordId).pop();
      applyPaymentStatus(o, reported ? reported.payment_status : sessionOrderStatus(session));
    });
    return { order: saved, session };
  }

  /** Marks the order shipped and hands the tracking code to the module, which posts it to the service. */
  async ship(id: string, dto: ShipOrderDto): Promise<DemoOrder> {
    const order = await this.orders.get(id);
    if (order.status === 'canceled') throw new ConflictException(`order ${id} is canceled`);
    if (!PAID.includes(order.paymentStatus)) {
      throw new ConflictException(`order ${id} cannot ship: its payment is ${order.paymentStatus}`);
    }
    try {
      await this.tracking.recordShipment({
        orderId: id,
        trackingCode: dto.tracking_code,
        carrier: dto.carrier,
        trackingUrl: dto.tracking_url,
      });
    } catch (err) {
      // The module's own checks, in the store API's words: 400 naming the body field, 409 for an unpaid order.
      if (err instanceof ShipmentValidationError) {
        const field = SHIPMENT_FIELDS[err.field] ?? err.field;
        throw new BadRequestException(`${field} ${err.message.slice(err.field.length + 2)}`);
      }
      if (err instanceof OrderNotPaidError) throw new ConflictException(err.message);
      throw err;
    }
    return this.orders.mutate(id, (o) => {
      o.trackingCode = dto.tracking_code.trim();
      o.carrier = dto.carrier ?? null;
      o.trackingUrl = dto.tracking_url ?? null;
      o.shippedAt ??= new Date().toISOString();
      o.fulfillmentStatus = 'shipped';
      if (o.status === 'pending') o.status = 'completed';
    });
  }

  /** Refunds `amount` cents (default: all that is left). */
  async refund(id: string, dto: RefundOrderDto): Promise<DemoOrder> {
    const order = await this.orders.get(id);
    if (!order.invoiceRecordId || !['captured', 'partially_refunded'].includes(order.paymentStatus)) {
      throw new ConflictException(`order ${id} has no payment to refund (payment ${order.paymentStatus})`);
    }
    const amount = dto.amount ?? order.total - order.refundedTotal;
    const { data } = await this.payments.refundPayment({
      data: { invoiceRecordId: order.invoiceRecordId },
      amount,
      ...(dto.idempotency_key !== undefined ? { idempotencyKey: dto.idempotency_key } : {}),
    });
    return this.orders.mutate(id, (o) => {
      o.refundedTotal = Math.max(o.refundedTotal, data.refundedCents);
    });
  }

  /** Cancels an unpaid order and its open invoice; a paid order must be refunded first. */
  async cancel(id: string): Promise<DemoOrder> {
    const order = await this.orders.get(id);
    if (order.status === 'canceled') return order;
    if (['captured', 'partially_refunded'].includes(order.paymentStatus)) {
      throw new ConflictException(`order ${id} is paid: refund it before canceling`);
    }
    if (
      order.invoiceRecordId &&
      ['awaiting', 'authorized', 'requires_action'].includes(order.paymentStatus)
    ) {
      await this.payments.cancelPayment({ data: { invoiceRecordId: order.invoiceRecordId } });
    }
    return this.orders.mutate(id, (o) => {
      o.status = 'canceled';
      o.canceledAt ??= new Date().toISOString();
    });
  }
}

/** The order as the module's checkout reads it (Medusa's order fields; cents). */
function toCheckoutOrder(order: DemoOrder, customerIp?: string): CheckoutOrder {
  const a = order.shippingAddress;
  return {
    id: order.id,
    display_id: order.displayId,
    // The order id, not its number: the reference must stay unique even if the store's numbering restarts.
    reference: order.id,
    currency_code: order.currencyCode,
    total: order.total,
    shipping_total: order.shippingTotal,
    discount_total: order.discountTotal,
    items: order.items.map((i) => ({
      id: i.id,
      title: i.title,
      thumbnail: i.thumbnail,
      quantity: i.quantity,
      unit_price: i.unit_price,
      requires_shipping: i.requires_shipping,
    })),
    customer: {
      first_name: order.customer.first_name,
      last_name: order.customer.last_name,
      email: order.customer.email ?? undefined,
      phone: order.customer.phone ?? undefined,
      document: order.customer.document ?? undefined,
    },
    shipping_address: a && {
      address_1: a.address_1,
      address_2: a.address_2,
      number: a.number,
      district: a.district,
      city: a.city,
      province: a.province,
      postal_code: a.postal_code,
      country_code: a.country_code,
    },
    customer_ip: customerIp,
  };
}

/** The order payment status a fresh session stands for: the module's status table says it. */
function sessionOrderStatus(session: InvoicePaymentSessionData): DemoOrder['paymentStatus'] {
  return statusRow(session.statusCode)?.order ?? 'awaiting';
}
