import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { parse } from 'graphql';
import {
  ActiveOrderService,
  Allow,
  ConfigService,
  Ctx,
  Order,
  OrderService,
  Permission,
  RequestContext,
  UserInputError,
} from '@vendure/core';
import { ShopperPaymentNotFoundError } from '../checkout/shopper.errors';
import { ShopperPaymentsService } from '../checkout/shopper-payments.service';
import type { ShopperPaymentView } from '../checkout/shopper-view';
import { idProblem } from '../domain/text-and-days';
import { asGraphQlError } from './shop-api.resolver';

/** The shopper's payment screen in the Shop API: the fields of the status routes' JSON (docs/storefront-routes.md). */
export const shopStatusSchema = parse(`
  type InvoicePaymentViewPix {
    "PIX copy-and-paste code."
    payload: String
    "QR code image URL."
    image: String
    "When the code stops being payable (ISO 8601): the end of its due day in the store's time zone."
    expiresAt: String
  }

  type InvoicePaymentViewBillet {
    "Digitable line."
    line: String
    barcode: String
    "Bank slip link."
    url: String
    "Due day, YYYY-MM-DD."
    dueAt: String
  }

  type InvoicePaymentViewCard {
    brand: String
    last4: String
    installments: Int
  }

  type InvoicePaymentView {
    method: InvoicePaymentMethod!
    "waiting, processing, paid, expired, canceled, failed or refunded."
    state: String!
    "Exact decimal, e.g. 123.45."
    amount: String!
    currency: String!
    "The service's invoice number, null before it is known."
    invoiceNumber: String
    pix: InvoicePaymentViewPix
    billet: InvoicePaymentViewBillet
    card: InvoicePaymentViewCard
    "An expired (or expiring) PIX may get a new code: renewInvoicePayment."
    renewable: Boolean!
    orderUrl: String
  }

  extend type Query {
    "The payment of the session's active order, or of the order with this code if the session may see it; else null."
    invoicePayment(orderCode: String): InvoicePaymentView
  }

  extend type Mutation {
    "A new PIX code for the order's expired PIX (the order as for invoicePayment); null when there is no such order."
    renewInvoicePayment(orderCode: String): InvoicePaymentView
  }
`);

/** Vendure's order codes are 16 characters; anything much longer is not one. */
const MAX_ORDER_CODE = 64;

/** `invoicePayment` and `renewInvoicePayment`: read from the store's own record, never another shopper's order. */
@Resolver()
export class InvoicePaymentStatusResolver {
  constructor(
    private readonly activeOrders: ActiveOrderService,
    private readonly orders: OrderService,
    private readonly config: ConfigService,
    private readonly payments: ShopperPaymentsService,
  ) {}

  @Query()
  @Allow(Permission.Owner)
  async invoicePayment(@Ctx() ctx: RequestContext, @Args() args: { orderCode?: string | null }) {
    const order = await this.orderOf(ctx, args.orderCode);
    return this.answer(() => this.payments.read(...this.lookup(ctx, order)));
  }

  @Mutation()
  @Allow(Permission.Owner)
  async renewInvoicePayment(@Ctx() ctx: RequestContext, @Args() args: { orderCode?: string | null }) {
    const order = await this.orderOf(ctx, args.orderCode);
    return this.answer(() => this.payments.renew(...this.lookup(ctx, order)));
  }

  /** The rate's key is the session (or the order when the session is unknown), the record the order's latest. */
  private lookup(ctx: RequestContext, order: Order | null) {
    const key = `vendure:${ctx.session?.id ?? 'none'}:${order?.id ?? 'none'}`;
    return [key, async () => (order ? this.payments.latestOf(String(order.id)) : null)] as const;
  }

  /**
   * No code: the session's active order. A code: that order if it is the session's active one, or if Vendure's own
   * `orderByCodeAccessStrategy` lets this session see it (as `orderByCode` does); else `null`, the same as a code
   * that does not exist.
   */
  private async orderOf(ctx: RequestContext, code?: string | null): Promise<Order | null> {
    const active = await this.activeOrders.getActiveOrder(ctx, undefined);
    if (code === undefined || code === null) return active ?? null;
    // Checked before SQL: a NUL byte would be a database error, a 10 kB string a wasted lookup.
    const problem = code.length > MAX_ORDER_CODE ? `at most ${MAX_ORDER_CODE} characters` : idProblem(code);
    if (problem) throw new UserInputError(`orderCode: ${problem}`);
    if (active?.code === code) return active;
    const order = await this.orders.findOneByCode(ctx, code, ['customer', 'customer.user']);
    if (!order) return null;
    const strategy = this.config.orderOptions.orderByCodeAccessStrategy;
    return (await strategy.canAccessOrder(ctx, order)) ? order : null;
  }

  /** Not the caller's: `null`; the module's refusals as GraphQL errors the storefront can act on. */
  private async answer(load: () => Promise<ShopperPaymentView>): Promise<ShopperPaymentView | null> {
    try {
      return await load();
    } catch (err) {
      if (err instanceof ShopperPaymentNotFoundError) return null;
      throw asGraphQlError(err);
    }
  }
}
