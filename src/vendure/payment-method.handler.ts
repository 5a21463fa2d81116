import { randomUUID } from 'node:crypto';
import { LanguageCode, Logger, PaymentMethodHandler, TransactionalConnection } from '@vendure/core';
import type { Injector, Order, RequestContext } from '@vendure/core';
import { asPaymentServiceError } from '../core/invoice.errors';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { StatusChangeDispatcher } from '../core/status-dispatcher.service';
import { InvoiceStatusCode, statusIs } from '../domain/status-table';
import { dialectOf } from '../persistence/dialect';
import { RefundBeingConfirmedError } from '../refunds/errors';
import {
  INVOICE_PAYMENTS_HANDLER_CODE,
  LOG_CONTEXT,
  PAYMENT_STATE_OF_CODE,
  paymentStateOf,
} from './constants';
import { recordOf } from './order-access';

let provider: InvoicePaymentProvider;
let connection: TransactionalConnection;
let dispatcher: StatusChangeDispatcher;

/**
 * Inside Vendure's transaction, an operation's report starts the module's delivery at once. On SQLite the two share
 * one connection, so that delivery is finished first, while Vendure waits, rather than interleaved with Vendure's.
 */
async function finishModuleWork(): Promise<void> {
  if (dialectOf(connection.rawConnection).sharedConnection) await dispatcher.drain();
}

/** An English-only localized string, as Vendure's admin takes labels. */
export function en(value: string): Array<{ languageCode: LanguageCode; value: string }> {
  return [{ languageCode: LanguageCode.en, value }];
}

/**
 * The module's Vendure payment method (`invoice-payments`). The order port adds the Payments; a Shop API
 * `addPaymentToOrder` is declined (its metadata comes from the client). See docs/vendure.md.
 */
export const invoicePaymentMethodHandler = new PaymentMethodHandler({
  code: INVOICE_PAYMENTS_HANDLER_CODE,
  description: en('PIX, bank slip and credit card (invoice payments)'),
  args: {
    methods: {
      type: 'string',
      list: true,
      required: false,
      label: en('Payment options offered'),
      description: en('Which of PIX, bank slip and card the storefront may start (none chosen: all)'),
      ui: {
        component: 'select-form-input',
        options: [
          { value: 'pix', label: en('PIX') },
          { value: 'billet', label: en('Bank slip (boleto)') },
          { value: 'card', label: en('Credit card') },
        ],
      },
    },
  },

  init(injector: Injector) {
    provider = injector.get(InvoicePaymentProvider);
    connection = injector.get(TransactionalConnection);
    dispatcher = injector.get(StatusChangeDispatcher);
  },

  async createPayment(ctx: RequestContext, order: Order, amount: number, _args, metadata) {
    if (ctx.apiType === 'shop') {
      return {
        amount,
        state: 'Declined',
        errorMessage: 'start the payment with the startInvoicePayment mutation',
      };
    }
    const record = await recordOf(connection, metadata?.invoiceRecordId);
    if (!record || record.orderId !== String(order.id))
      return { amount, state: 'Declined', errorMessage: 'no invoice of this order' };
    const state = paymentStateOf(record.statusCode, record.amountMismatch);
    const base = {
      transactionId: record.gatewayId ?? undefined,
      // `public`: what the customer and the shop API may see of the payment.
      metadata: {
        invoiceRecordId: record.id,
        public: { method: record.method, invoice: record.gatewayId, statusCode: record.statusCode },
      },
    };
    if (!state || state === 'Declined') {
      const why = `invoice ${record.gatewayId ?? record.id} is ${record.statusText ?? 'not paid'}`;
      return { ...base, amount: record.amountCents, state: 'Declined', errorMessage: why };
    }
    // What the service says was paid; another amount than the order's is only Authorized, for a person to decide.
    return { ...base, amount: record.paidCents ?? record.amountCents, state };
  },

  // A person's "Settle payment" too: an amount the module held back (Authorized) is theirs to accept.
  async settlePayment(_ctx, _order, payment) {
    const record = await recordOf(connection, payment.metadata?.invoiceRecordId);
    if (record && PAYMENT_STATE_OF_CODE[record.statusCode ?? -1] === 'Settled') return { success: true };
    return {
      success: false,
      errorMessage: `the service has not reported invoice ${payment.transactionId} paid`,
    };
  },

  async cancelPayment(_ctx, _order, payment) {
    const record = await recordOf(connection, payment.metadata?.invoiceRecordId);
    if (!record || !statusIs(record.statusCode, 'cancellable')) return { success: true };
    try {
      await provider.cancelPayment({ data: { invoiceRecordId: record.id } });
      await finishModuleWork();
      return { success: true };
    } catch (err) {
      // The payment's `errorMessage` (the shop API shows it): the service's trouble as a plain sentence.
      const { message } = asPaymentServiceError(err) as Error;
      Logger.warn(`cancel of invoice ${record.gatewayId} failed: ${message}`, LOG_CONTEXT);
      return { success: false, errorMessage: message };
    }
  },

  async createRefund(_ctx, _input, amount, _order, payment) {
    const record = await recordOf(connection, payment.metadata?.invoiceRecordId);
    if (!record) return { state: 'Failed', metadata: { errorMessage: 'no invoice for this payment' } };
    try {
      // Each call is a new Vendure Refund (Vendure never repeats one, and saves the Refund, and so its id, only after
      // this returns): its own key, so two refunds of the same amount are two refunds at the service too.
      const { data } = await provider.refundPayment({
        data: { invoiceRecordId: record.id },
        amount,
        requestedBy: 'vendure',
        idempotencyKey: `vendure:${randomUUID()}`,
      });
      await finishModuleWork();
      return {
        // Asked for, not yet done (a bank slip's refund); the order port settles it once partially refunded or refunded.
        state: data.statusCode === InvoiceStatusCode.AwaitingRefund ? 'Pending' : 'Settled',
        transactionId: record.gatewayId ?? undefined,
        metadata: { statusCode: data.statusCode, refundedCents: data.refundedCents },
      };
    } catch (err) {
      if (err instanceof RefundBeingConfirmedError) {
        // The request left and its answer was lost: the module is confirming it. Pending until its ledger decides
        // (`OrderEventsSubscriber.onRefundSettled`: Settled or Failed); never asked for again.
        Logger.warn(`refund of invoice ${record.gatewayId}: ${err.message}`, LOG_CONTEXT);
        return { state: 'Pending', metadata: { refundId: err.refund.id, confirming: true } };
      }
      const { message } = asPaymentServiceError(err) as Error;
      Logger.warn(`refund of invoice ${record.gatewayId} failed: ${message}`, LOG_CONTEXT);
      return { state: 'Failed', metadata: { errorMessage: message } };
    }
  },
});
