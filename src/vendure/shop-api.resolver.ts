import { Inject } from '@nestjs/common';
import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { GraphQLError, parse } from 'graphql';
import {
  ActiveOrderService,
  Allow,
  Ctx,
  Customer,
  IllegalOperationError,
  isGraphQlErrorResult,
  Order,
  OrderService,
  PaymentMethodService,
  Permission,
  RequestContext,
  TransactionalConnection,
  UserInputError,
} from '@vendure/core';
import {
  asPaymentServiceError,
  CheckoutValidationError,
  fieldsSummary,
  isServiceTrouble,
  OpenInvoiceConflictError,
} from '../core/invoice.errors';
import { InvoicePaymentsError } from '../domain/invoice-payments.error';
import { isTaxDocument as isValidTaxDocument, normalizeDocument } from '../gateway/dto/validators';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { RenewalOutcomeUnknownError, ShopperRateLimitedError } from '../checkout/shopper.errors';
import type { InitiatePaymentData } from '../core/checkout.types';
import { toCheckoutOrder } from './order-mapping';
import { findInvoicePaymentMethod, offeredMethods } from './order-access';
import { VENDURE_PLUGIN_OPTIONS, type ResolvedPluginOptions } from './constants';

/** The Shop API extension: one mutation that starts (or resumes) the active order's invoice payment. */
export const shopApiSchema = parse(`
  enum InvoicePaymentMethod {
    pix
    billet
    card
  }

  input InvoicePaymentCardInput {
    "Token of the card from the service's tokenization script (never a card number)."
    token: String!
    "Card expiry, MM/YY."
    expiry: String!
    holderName: String!
  }

  input StartInvoicePaymentInput {
    method: InvoicePaymentMethod!
    "The customer's CPF or CNPJ; required when the customer record has none."
    document: String
    "Required for card."
    card: InvoicePaymentCardInput
    "Card only."
    installments: Int
  }

  type InvoicePaymentPix {
    "PIX copy-and-paste code."
    payload: String
    "QR code image URL."
    image: String
  }

  type InvoicePaymentBillet {
    "Digitable line."
    line: String
    barcode: String
    "Bank slip link."
    url: String
  }

  type InvoicePaymentCard {
    brand: String
    last4: String
  }

  type InvoicePaymentSession {
    invoiceRecordId: ID!
    method: InvoicePaymentMethod!
    "The service's invoice number."
    invoiceId: String
    statusCode: Int
    statusText: String
    "pending, requires_more, authorized, captured, canceled or error."
    sessionStatus: String!
    amount: Money!
    dueDate: String
    installments: Int!
    pix: InvoicePaymentPix
    billet: InvoicePaymentBillet
    card: InvoicePaymentCard
    paymentUrl: String
    "The order's state when the mutation answered (PaymentSettled once paid)."
    orderState: String!
    orderCode: String!
  }

  extend type Mutation {
    "Starts the active order's invoice payment (moving the order to ArrangingPayment), or resumes the open one."
    startInvoicePayment(input: StartInvoicePaymentInput!): InvoicePaymentSession!
  }
`);

interface StartInvoicePaymentInput {
  method: InitiatePaymentData['method'];
  document?: string | null;
  card?: { token: string; expiry: string; holderName: string } | null;
  installments?: number | null;
}

/** `startInvoicePayment`: the active order's invoice, created or resumed; the order port adds the Payment later. */
@Resolver()
export class InvoicePaymentShopResolver {
  constructor(
    private readonly activeOrders: ActiveOrderService,
    private readonly orders: OrderService,
    private readonly payments: InvoicePaymentProvider,
    private readonly connection: TransactionalConnection,
    private readonly methods: PaymentMethodService,
    @Inject(VENDURE_PLUGIN_OPTIONS) private readonly options: ResolvedPluginOptions,
  ) {}

  @Mutation()
  @Allow(Permission.UpdateOrder, Permission.Owner)
  async startInvoicePayment(@Ctx() ctx: RequestContext, @Args() args: { input: StartInvoicePaymentInput }) {
    const { input } = args;
    await this.checkOffered(ctx, input.method);
    const order = await this.arrangingPayment(ctx);
    const document = await this.documentFor(ctx, order, input.document);
    const data: InitiatePaymentData = {
      order: toCheckoutOrder(order, { document, customerIp: ctx.req?.ip }),
      method: input.method,
      card: input.card
        ? { token: input.card.token, expiry: input.card.expiry, holder_name: input.card.holderName }
        : undefined,
      installments: input.installments ?? undefined,
    };
    const request = { amount: order.totalWithTax, currency_code: order.currencyCode, data };
    const { data: session } = await this.payments
      .initiatePayment(request)
      .catch((err: unknown) => {
        if (!(err instanceof OpenInvoiceConflictError)) throw err;
        // Another method or amount than the open invoice's: the module cancels it and issues another.
        return this.payments.updatePayment({
          ...request,
          data: { invoiceRecordId: err.invoiceRecordId, ...data },
        });
      })
      .catch((err: unknown) => Promise.reject(asGraphQlError(err)));
    const now = await this.orders.findOne(ctx, order.id, []);
    // GraphQL answers only the schema's fields of the session.
    return {
      ...session,
      invoiceId: session.gatewayId,
      amount: session.amountCents,
      orderState: now?.state ?? order.state,
      orderCode: order.code,
    };
  }

  /** The channel must have the payment method enabled, offering this option (its `methods` argument). */
  private async checkOffered(ctx: RequestContext, method: InitiatePaymentData['method']): Promise<void> {
    const paymentMethod = await findInvoicePaymentMethod(this.methods, ctx);
    if (!paymentMethod) throw new IllegalOperationError('Invoice payments are not enabled in this channel');
    const offered = offeredMethods(paymentMethod);
    if (!offered.includes(method))
      throw new UserInputError(
        `input.method ${method} is not offered (offered: ${offered.join(', ') || 'none'})`,
      );
  }

  /** The active order, moved to `ArrangingPayment` (Vendure checks it has a customer and a shipping method). */
  private async arrangingPayment(ctx: RequestContext): Promise<Order> {
    const active = await this.activeOrders.getActiveOrder(ctx, undefined);
    if (!active) throw new UserInputError('There is no active order');
    let refused = '';
    if (active.state === 'AddingItems') {
      const moved = await this.connection.withTransaction(ctx, (tx) =>
        this.orders.transitionToState(tx, active.id, 'ArrangingPayment'),
      );
      // Refused, the reason is kept: unless a concurrent call moved the order first, it is what the customer sees.
      if (isGraphQlErrorResult(moved)) refused = `${moved.message}: ${moved.transitionError ?? ''}`.trim();
    }
    const order = await this.orders.findOne(ctx, active.id);
    if (!order || order.state !== 'ArrangingPayment')
      throw new IllegalOperationError(
        refused || `The order cannot be paid in state ${order?.state ?? 'unknown'}`,
      );
    return order;
  }

  /** The CPF or CNPJ given now (kept on a customer record that has none), else the customer record's. */
  private async documentFor(
    ctx: RequestContext,
    order: Order,
    given?: string | null,
  ): Promise<string | undefined> {
    const field = this.options.documentField;
    const kept = (order.customer?.customFields as Record<string, unknown> | undefined)?.[field];
    const stored = typeof kept === 'string' && kept !== '' ? kept : undefined;
    const document = given ? normalizeDocument(given) : undefined;
    if (document && !stored && order.customer && isValidTaxDocument(document)) {
      await this.connection
        .getRepository(ctx, Customer)
        .update({ id: order.customer.id }, { customFields: { [field]: document } } as never);
    }
    return document || stored;
  }
}

/**
 * The module's errors as GraphQL errors a storefront can act on: bad input names its fields, a wait says how long, a
 * refusal says why; the service's trouble stays a `PaymentServiceError`.
 */
export function asGraphQlError(err: unknown): unknown {
  if (err instanceof CheckoutValidationError) {
    return new UserInputError(fieldsSummary(err.fields) || err.message);
  }
  if (err instanceof ShopperRateLimitedError || err instanceof RenewalOutcomeUnknownError) {
    const code = err instanceof ShopperRateLimitedError ? 'TOO_MANY_REQUESTS' : 'TRY_AGAIN_LATER';
    return new GraphQLError(err.message, { extensions: { code, retryAfterSeconds: err.retryAfterSeconds } });
  }
  const error = asPaymentServiceError(err);
  if (error instanceof InvoicePaymentsError && !isServiceTrouble(error))
    return new IllegalOperationError(error.message);
  return error;
}
