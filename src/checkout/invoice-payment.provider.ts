import { Inject, Injectable, Logger } from '@nestjs/common';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { statusRow } from '../core/status-table';
import { HOST_WEBHOOKS, HostWebhooks } from '../core/ports';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { RefundBeingConfirmedError } from '../refunds/errors';
import { RefundSettlementService } from '../refunds/refund-settlement.service';
import { RefundService } from '../refunds/refund.service';
import { isCalendarDay, todayIn } from './calendar';
import { CheckoutConfig } from './checkout-config.service';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from './errors';
import { refusal, type InvoiceAction } from './invoice-actions';
import { InvoiceCreationService } from './invoice-creation.service';
import { InvoiceRecordStore } from './invoice-record.store';
import { sessionDataOf, sessionStatusOf } from './session-data';
import type {
  ChangeDueDateInput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  PaymentSessionInput,
  PaymentSessionOutput,
  PaymentStatusOutput,
  PaymentWebhookAction,
  ProviderWebhookPayload,
  RefundPaymentInput,
  UpdatePaymentInput,
  WebhookActionResult,
} from './types';

/** Codes after which an attempt is over unpaid: nothing to cancel or delete. */
const CLOSED_UNPAID: readonly number[] = [6, 12, 16];

/**
 * The payment provider, in the shape of Medusa's (v2.5+) `AbstractPaymentProvider`: methods take
 * `{ data, amount, currency_code, context }` and return `{ data, status? }`, where `data` is the session's
 * {@link InvoicePaymentSessionData} (the storefront shows its PIX code, bank-slip line or card result).
 *
 * Capture: the service has no capture operation. Money is captured when the customer pays the PIX or bank slip,
 * or when the acquirer settles the card (status 5); `capturePayment` only confirms that this has happened and
 * throws `InvoiceOperationNotAllowedError` otherwise. Every status change goes through the one status path
 * (`InvoiceStatusService`), which notifies the host's port and the event bus.
 */
@Injectable()
export class InvoicePaymentProvider {
  /** Medusa's provider identifier. */
  static readonly identifier = 'invoice-payments';

  constructor(
    private readonly creation: InvoiceCreationService,
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    private readonly config: CheckoutConfig,
    @Inject(HOST_WEBHOOKS) private readonly webhooks: HostWebhooks,
    private readonly refunds: RefundService,
    private readonly settlement: RefundSettlementService,
  ) {}

  private readonly logger = new Logger('InvoicePaymentProvider');

  /**
   * Creates the order's invoice, or returns the open one for the same method and amount: at most one open invoice
   * per order, one create request however many concurrent calls. Bad input throws `CheckoutValidationError`
   * before anything is sent; an open invoice for another method or amount throws `OpenInvoiceConflictError`.
   */
  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const record = await this.creation.create(input);
    return { id: record.id, data: sessionDataOf(record), status: sessionStatusOf(record) };
  }

  /** The session's status as last reported (webhooks keep it current; `retrievePayment` asks the service). */
  async authorizePayment(input: PaymentSessionInput): Promise<PaymentStatusOutput> {
    return this.getPaymentStatus(input);
  }

  async getPaymentStatus(input: PaymentSessionInput): Promise<PaymentStatusOutput> {
    const record = await this.store.get(input?.data?.invoiceRecordId);
    return { status: sessionStatusOf(record), data: sessionDataOf(record) };
  }

  /** Confirms the money was captured (see the class note: the service has no capture operation). */
  async capturePayment(input: PaymentSessionInput): Promise<PaymentSessionOutput> {
    const record = await this.store.get(input?.data?.invoiceRecordId);
    if (sessionStatusOf(record) !== 'captured') {
      throw new InvoiceOperationNotAllowedError(
        'capture',
        record.id,
        `status ${record.statusCode ?? 'none'}: the service has no capture operation; ` +
          'the payment is captured when the customer pays (status 5)',
      );
    }
    return { data: sessionDataOf(record) };
  }

  /** Cancels the invoice at the service (status 1, 2, 3, 4 or 15); already canceled: nothing to do. */
  async cancelPayment(input: PaymentSessionInput): Promise<PaymentSessionOutput> {
    const record = await this.settled(input);
    if (record.creationState === 'failed' || record.statusCode === 6) return { data: sessionDataOf(record) };
    return { data: sessionDataOf(await this.cancel(record)) };
  }

  /** The session is dropped (the customer chose another method): cancel what can still be paid. */
  async deletePayment(input: PaymentSessionInput): Promise<PaymentSessionOutput> {
    const record = await this.settled(input);
    if (record.creationState === 'failed' || CLOSED_UNPAID.includes(record.statusCode ?? -1)) {
      return { data: sessionDataOf(record) };
    }
    return { data: sessionDataOf(await this.cancel(record)) };
  }

  /**
   * Refunds `amount` cents of a paid invoice (status 5 or 8), at most what remains refundable, exactly once: through
   * the refund ledger (`RefundService`, docs/refunds.md). Another refund of the invoice in flight →
   * `RefundInProgressError` (409); the answer lost and the outcome still being confirmed →
   * `RefundBeingConfirmedError` (409, retry with the same `idempotencyKey` for its result); no key and the same
   * amount as a refund asked for within `refunds.repeatWindowMs` → `RefundRepeatedError` (409, nothing sent).
   */
  async refundPayment(input: RefundPaymentInput): Promise<PaymentSessionOutput> {
    const record = await this.settled(input);
    const key = input.idempotencyKey ?? input.context?.idempotency_key;
    const { refund, record: after } = await this.refunds.refund({
      invoiceRecordId: record.id,
      amountCents: input.amount,
      requestedBy: input.requestedBy ?? 'provider',
      ...(key !== undefined ? { idempotencyKey: key } : {}),
    });
    if (refund.state !== 'succeeded') {
      throw new RefundBeingConfirmedError(record.id, refund, this.settlement.retryAfterSeconds(refund));
    }
    return { data: sessionDataOf(after) };
  }

  /** Asks the service for the invoice and applies what it says (source `provider`). */
  async retrievePayment(input: PaymentSessionInput): Promise<PaymentSessionOutput> {
    const record = await this.settled(input);
    if (record.creationState !== 'created') return { data: sessionDataOf(record) };
    // By the number the record holds: an invoice found by referrer alone could be another store's.
    const invoice = await this.gateway.findInvoiceById(this.gatewayId(record));
    const ours = invoice && !(await this.store.identity.whyNotOurs(invoice, record, 'number'));
    return { data: sessionDataOf(ours ? await this.report(record, invoice, 'provider') : record) };
  }

  /**
   * The service cannot change an invoice: the same amount, method and order keep the session; a new amount or
   * method (or a new `order`) cancels the open invoice and creates another. The new request is validated first,
   * so bad input cancels nothing.
   */
  async updatePayment(input: UpdatePaymentInput): Promise<InitiatePaymentOutput> {
    const record = await this.store.get(input?.data?.invoiceRecordId);
    const { order, method = record.method, installments } = input.data;
    const given: unknown = input.data.card;
    if (given !== undefined && given !== null && typeof given !== 'object') {
      throw new CheckoutValidationError({ card: ['must be an object'] }); // `'token' in 'x'` would be a TypeError
    }
    // A session's masked card ({ brand, last4 }) comes back here too: only new card data (a token) is used.
    const card = input.data.card && 'token' in input.data.card ? input.data.card : undefined;
    const same = method === record.method && input.amount === record.amountCents;
    const open = record.openOrderId !== null;
    if (!order) {
      if (same) return { id: record.id, data: sessionDataOf(record), status: sessionStatusOf(record) };
      throw new CheckoutValidationError({ 'data.order': ['is required to change the amount or the method'] });
    }
    const request = {
      amount: input.amount,
      currency_code: input.currency_code,
      data: { order, method, card, installments },
    };
    await this.creation.prepare(request);
    if (same && open && order.id === record.orderId) return this.initiatePayment(request);
    if (open) {
      const settled = await this.creation.settle(record);
      if (settled.openOrderId !== null && !CLOSED_UNPAID.includes(settled.statusCode ?? -1))
        await this.cancel(settled);
    }
    return this.initiatePayment(request);
  }

  /** Moves the due date of a PIX or bank-slip invoice in status 1 or 15, checked before calling the service. */
  async changeDueDate(input: ChangeDueDateInput): Promise<PaymentSessionOutput> {
    const record = await this.settled(input);
    const options = await this.config.current();
    const today = todayIn(options.timeZone, new Date());
    if (!isCalendarDay(input.dueDate) || input.dueDate < today) {
      throw new CheckoutValidationError({ dueDate: [`must be a YYYY-MM-DD day from ${today} on`] });
    }
    this.allow('changeDueDate', record);
    const invoice = await this.gateway.changeDueDate({
      invoiceId: this.gatewayInvoiceId(record),
      dueAt: input.dueDate,
    });
    return { data: sessionDataOf(await this.report(record, invoice, 'operation')) };
  }

  /**
   * What a webhook delivery means for Medusa, taken through the module's own webhook path (the route's bounds and
   * `Webhook` token check, the inbox, the service's answer applied to the invoice's record) and waited for: the status
   * table's session status of what the service said → `authorized`, `captured` (paid, status 5), `pending`,
   * `requires_more`, `canceled`, `failed` (error); refunds, disputes, unknown codes, unknown invoices, a second
   * invoice under a session's referrer and refused deliveries → `not_supported` (they reach the host through the
   * port and the events instead). Pass the request's headers. A delivery that cannot be settled now (the service
   * unreachable) is `not_supported` too: the inbox keeps it and applies it on its own.
   */
  async getWebhookActionAndData(payload: ProviderWebhookPayload): Promise<WebhookActionResult> {
    const outcome = await this.webhooks.settle(payload);
    if (outcome.kind !== 'applied') {
      this.logger.warn(`webhook delivery not acted on: ${outcome.reason}`);
      return { action: 'not_supported' };
    }
    const { record, confirmed } = outcome;
    const row = statusRow(confirmed.code);
    if (!row) return { action: 'not_supported' };
    const actions: Record<string, PaymentWebhookAction> = {
      pending: 'pending',
      requires_more: 'requires_more',
      authorized: 'authorized',
      captured: row.code === 5 ? 'captured' : 'not_supported',
      canceled: 'canceled',
      error: 'failed',
    };
    const amount = confirmed.paidCents ?? confirmed.grossCents ?? record.amountCents;
    return { action: actions[row.session], data: { session_id: record.id, amount } };
  }

  /** The record of a session, its creation settled first when it was left unknown. */
  private async settled(input: PaymentSessionInput): Promise<InvoiceRecord> {
    return this.creation.settle(await this.store.get(input?.data?.invoiceRecordId));
  }

  private async cancel(record: InvoiceRecord): Promise<InvoiceRecord> {
    this.allow('cancel', record);
    const invoice = await this.gateway.cancelInvoice({ id: this.gatewayId(record) });
    return this.report(record, invoice, 'operation');
  }

  private async report(record: InvoiceRecord, invoice: Invoice, source: 'operation' | 'provider') {
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source, invoice });
    return this.store.get(record.id);
  }

  /** Refuses `action` when the invoice's state does not allow it (the one rule set, `invoice-actions.ts`). */
  private allow(action: InvoiceAction, record: InvoiceRecord): void {
    const refused = refusal(action, record);
    if (refused) {
      throw new InvoiceOperationNotAllowedError(
        action,
        record.id,
        refused.rule,
        refused.reason,
        record.statusCode,
      );
    }
  }

  private gatewayId(record: InvoiceRecord): string {
    return record.gatewayId ?? '';
  }

  private gatewayInvoiceId(record: InvoiceRecord): string {
    return record.gatewayInvoiceId ?? '';
  }
}
