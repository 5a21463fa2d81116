import { Inject, Injectable, Logger } from '@nestjs/common';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { InvoiceStatusCode, statusIs } from '../domain/status-table';
import { HOST_WEBHOOKS, HostWebhooks, webhookActionOfOutcome } from '../core/ports';
import { GatewayOutcomeUnknownError, GatewayStateConflictError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { RefundBeingConfirmedError } from '../refunds/errors';
import { RefundSettlementService } from '../refunds/refund-settlement.service';
import { RefundService } from '../refunds/refund.service';
import { isCalendarDay } from '../gateway/dto/validators';
import { firstDueDay } from '../domain/text-and-days';
import { CLOCK, type Clock } from '../domain/clock';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../core/invoice.errors';
import { assertAllowed } from '../core/invoice-actions';
import { InvoiceCreationService } from './invoice-creation.service';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import {
  type ChangeDueDateInput,
  type InitiatePaymentInput,
  type InitiatePaymentOutput,
  type PaymentSessionInput,
  type PaymentSessionOutput,
  type PaymentStatusOutput,
  type ProviderWebhookPayload,
  type RefundPaymentInput,
  type UpdatePaymentInput,
  type WebhookActionResult,
  sessionDataOf,
  sessionStatusOf,
} from '../core/checkout.types';

/** The record's invoice can never be paid any more: the order may start another attempt. */
function releasesOrder(record: InvoiceRecord): boolean {
  return statusIs(record.statusCode, 'releasesOrder');
}

/** The payment provider in the shape of Medusa's (v2.5+) `AbstractPaymentProvider` (docs/checkout.md). */
@Injectable()
export class InvoicePaymentProvider {
  static readonly identifier = 'invoice-payments';

  constructor(
    private readonly creation: InvoiceCreationService,
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    @Inject(HOST_WEBHOOKS) private readonly webhooks: HostWebhooks,
    private readonly refunds: RefundService,
    private readonly settlement: RefundSettlementService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private readonly logger = new Logger('InvoicePaymentProvider');

  /**
   * Creates the order's invoice once, or returns its open one for the same method and amount (docs/checkout.md).
   * `data.statusToken` addresses the shopper's status route (`GET /invoice-payments/payments/:token`): each call
   * hands out a new one, and the one handed out before it keeps working. `read`: the checkout options in force
   * when the host already read them to build the order (`InvoiceCreationService.current`), so a checkout reads once.
   */
  async initiatePayment(
    input: InitiatePaymentInput,
    read?: ResolvedCheckoutOptions,
  ): Promise<InitiatePaymentOutput> {
    const { record, statusToken } = await this.creation.create(input, read);
    const data = { ...sessionDataOf(record), statusToken };
    return { id: record.id, data, status: sessionStatusOf(record) };
  }

  /** The session's status as last reported (webhooks keep it current; `retrievePayment` asks the service). */
  async authorizePayment(input: PaymentSessionInput): Promise<PaymentStatusOutput> {
    return this.getPaymentStatus(input);
  }

  async getPaymentStatus(input: PaymentSessionInput): Promise<PaymentStatusOutput> {
    const record = await this.store.get(input?.data?.invoiceRecordId);
    return { status: sessionStatusOf(record), data: sessionDataOf(record) };
  }

  /** Confirms the money was captured: the service has no capture operation (status 5 is paid). */
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
    return this.cancelUnless(input, (record) => record.statusCode === InvoiceStatusCode.Canceled);
  }

  /** The session is dropped (the customer chose another method): cancel what can still be paid. */
  async deletePayment(input: PaymentSessionInput): Promise<PaymentSessionOutput> {
    return this.cancelUnless(input, releasesOrder);
  }

  /** Refunds `amount` cents of a paid invoice exactly once, through `RefundService` (docs/refunds.md). */
  async refundPayment(input: RefundPaymentInput): Promise<PaymentSessionOutput> {
    const record = await this.resolved(input);
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
    const record = await this.resolved(input);
    if (record.creationState !== 'created') return { data: sessionDataOf(record) };
    return { data: sessionDataOf((await this.readBack(record)) ?? record) };
  }

  /**
   * Same amount, method and order keep the session; else the open invoice is canceled and another created. `read`:
   * the checkout options in force the order was built with (else read here), read once for the whole update.
   */
  async updatePayment(
    input: UpdatePaymentInput,
    read?: ResolvedCheckoutOptions,
  ): Promise<InitiatePaymentOutput> {
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
    const { options } = await this.creation.prepare(request, read);
    if (same && open && order.id === record.orderId) return this.initiatePayment(request, options);
    if (open) {
      const resolved = await this.creation.resolveCreation(record);
      if (resolved.openOrderId !== null && !releasesOrder(resolved)) {
        await this.cancel(resolved, releasesOrder);
      }
    }
    return this.initiatePayment(request, options);
  }

  /** Moves the due date of a PIX or bank-slip invoice in status 1 or 15, checked before calling the service. */
  async changeDueDate(input: ChangeDueDateInput): Promise<PaymentSessionOutput> {
    const record = await this.resolved(input);
    const options = await this.creation.current();
    // The store's today, or the service's (in the wire profile's zone) when the store is still on yesterday.
    const serviceZone = (await this.gateway.wireProfile()).timeZone;
    const today = firstDueDay(options.timeZone, serviceZone, this.clock.date());
    if (!isCalendarDay(input.dueDate) || input.dueDate < today) {
      throw new CheckoutValidationError({ dueDate: [`must be a YYYY-MM-DD day from ${today} on`] });
    }
    assertAllowed('changeDueDate', record);
    const invoice = await this.gateway.changeDueDate({
      invoiceId: record.gatewayInvoiceId ?? '',
      dueAt: input.dueDate,
    });
    return { data: sessionDataOf(await this.report(record, invoice, 'operation')) };
  }

  /** A webhook delivery, taken through the module's webhook path, as Medusa's action (docs/medusa.md). */
  async getWebhookActionAndData(payload: ProviderWebhookPayload): Promise<WebhookActionResult> {
    const outcome = await this.webhooks.receive(payload);
    // Not settled now is `not_supported` here, not thrown: the inbox applies it later and the order port hears it.
    return webhookActionOfOutcome(
      outcome.kind === 'later' ? { ...outcome, kind: 'none' } : outcome,
      this.logger,
    );
  }

  /** The session's record, its creation resolved first when its outcome is not known yet. */
  private async resolved(input: PaymentSessionInput): Promise<InvoiceRecord> {
    return this.creation.resolveCreation(await this.store.get(input?.data?.invoiceRecordId));
  }

  private async cancelUnless(input: PaymentSessionInput, done: (record: InvoiceRecord) => boolean) {
    const record = await this.resolved(input);
    if (record.creationState === 'failed' || done(record)) return { data: sessionDataOf(record) };
    return { data: sessionDataOf(await this.cancel(record, done)) };
  }

  /** Cancels at the service; `done`: what the record must show for a cancel that failed to count as made. */
  private async cancel(record: InvoiceRecord, done: (record: InvoiceRecord) => boolean) {
    assertAllowed('cancel', record);
    let invoice: Invoice;
    try {
      invoice = await this.gateway.cancelInvoice({ id: record.gatewayId ?? '' });
    } catch (err) {
      return this.afterFailedCancel(record, err, done);
    }
    return this.report(record, invoice, 'operation');
  }

  /**
   * A cancel whose answer was lost may have been made, and its retry is refused (409) once the invoice is canceled
   * at the service while the record still holds the order. The service is asked and what it holds is applied: the
   * cancel is done if the record now shows it; else the cancel's own error stands.
   */
  private async afterFailedCancel(
    record: InvoiceRecord,
    err: unknown,
    done: (record: InvoiceRecord) => boolean,
  ): Promise<InvoiceRecord> {
    const maybeMade = err instanceof GatewayOutcomeUnknownError || err instanceof GatewayStateConflictError;
    if (!maybeMade) throw err;
    // A read that fails too leaves the cancel's error, the one the caller can act on (retry later).
    const now = await this.readBack(record).catch(() => null);
    if (now && done(now)) return now;
    throw err;
  }

  /** Asks the service for the record's invoice and applies what it says (source `provider`); `null`: none of ours. */
  private async readBack(record: InvoiceRecord): Promise<InvoiceRecord | null> {
    // By the number the record holds: an invoice found by referrer alone could be another store's.
    const invoice = await this.gateway.findInvoiceById(record.gatewayId ?? '');
    const ours = invoice && !(await this.store.identity.whyNotOurs(invoice, record, 'number'));
    return ours ? this.report(record, invoice, 'provider') : null;
  }

  private async report(record: InvoiceRecord, invoice: Invoice, source: 'operation' | 'provider') {
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source, invoice });
    return this.store.get(record.id);
  }
}
