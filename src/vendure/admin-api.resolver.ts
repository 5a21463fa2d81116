import { Args, Query, Resolver } from '@nestjs/graphql';
import { parse } from 'graphql';
import {
  Allow,
  Ctx,
  EntityNotFoundError,
  OrderService,
  Permission,
  RequestContext,
  TransactionalConnection,
  type ID,
} from '@vendure/core';
import { RefundService } from '../refunds/refund.service';
import { orderInvoiceViews, type OrderInvoiceView } from '../settings/order-invoices.view';
import { TrackingService } from '../shipping/tracking.service';

/**
 * The Admin API extension: an order's invoices as the dashboard's order page shows them. Amounts are `Money`
 * (integer cents, as Vendure's own); times are ISO-8601 strings.
 */
export const adminApiSchema = parse(`
  type OrderInvoicePaymentCard {
    brand: String
    last4: String
  }

  type OrderInvoicePaymentRefund {
    id: ID!
    amount: Money!
    "pending, unknown (being confirmed with the service), succeeded or failed."
    state: String!
    reason: String
    createdAt: String!
    settledAt: String
  }

  type OrderInvoicePaymentTracking {
    code: String!
    url: String
    "pending, sent (the service has it) or failed."
    status: String!
    sentAt: String
  }

  type OrderInvoicePaymentAlert {
    kind: String!
    message: String!
    createdAt: String!
    acknowledged: Boolean!
  }

  type OrderInvoicePayment {
    id: ID!
    "pix, billet or card."
    method: String!
    "The service's invoice number."
    invoiceNumber: String
    statusCode: Int
    "The status's name in the service's interface (English)."
    statusName: String
    "paid, open, ended or expired (the status table's tone: how the status is coloured); null before a known status."
    statusTone: String
    "The order's payment status the invoice's status means (awaiting: still to be paid, by its due date)."
    orderPaymentStatus: String
    currencyCode: String!
    amount: Money!
    paid: Money
    refunded: Money!
    "What can still be refunded now (0 when the invoice cannot be refunded)."
    refundable: Money!
    "YYYY-MM-DD."
    dueDate: String
    "The due date (YYYY-MM-DD) while the invoice waits on the customer's payment (awaiting or overdue), else null."
    payBy: String
    installments: Int!
    card: OrderInvoicePaymentCard
    pixPayload: String
    "QR code image (URL or data URL)."
    pixImage: String
    billetLine: String
    billetUrl: String
    paymentUrl: String
    failureReason: String
    attentionReason: String
    createdAt: String!
    refunds: [OrderInvoicePaymentRefund!]!
    tracking: [OrderInvoicePaymentTracking!]!
    alerts: [OrderInvoicePaymentAlert!]!
  }

  extend type Query {
    "The invoices of an order of the active channel, newest first."
    invoicePaymentsForOrder(orderId: ID!): [OrderInvoicePayment!]!
  }
`);

/** `invoicePaymentsForOrder`: the per-order view the Medusa widget reads too, for the dashboard's order page. */
@Resolver()
export class InvoicePaymentAdminResolver {
  constructor(
    private readonly orders: OrderService,
    private readonly connection: TransactionalConnection,
    private readonly refunds: RefundService,
    private readonly tracking: TrackingService,
  ) {}

  @Query()
  @Allow(Permission.ReadOrder)
  async invoicePaymentsForOrder(@Ctx() ctx: RequestContext, @Args() args: { orderId: ID }) {
    // The order must be one of the admin's channel: an id of another channel reads nothing.
    const order = await this.orders.findOne(ctx, args.orderId, []);
    if (!order) throw new EntityNotFoundError('Order', args.orderId);
    const views = await orderInvoiceViews(
      { dataSource: this.connection.rawConnection, refunds: this.refunds, tracking: this.tracking },
      [String(order.id)],
    );
    return views.map(toGraphQl);
  }
}

function toGraphQl(view: OrderInvoiceView) {
  return {
    ...view,
    invoiceNumber: view.gatewayId,
    currencyCode: view.currency,
    amount: view.amountCents,
    paid: view.paidCents,
    refunded: view.refundedCents,
    refundable: view.refundableCents,
    refunds: view.refunds.map((r) => ({ ...r, amount: r.amountCents })),
  };
}
