import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { InvoicePaymentsAlert } from '../core/events';
import { InvoiceStatusService, type AppliedStatus } from '../core/invoice-status.service';
import { NO_HISTORY } from '../core/status-plan';
import { clip } from '../core/text-bounds';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceCreationState, InvoiceRecord } from '../persistence/invoice.entity';
import { CheckoutConfig } from './checkout-config.service';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import {
  errorMessage,
  InvoiceCreationNeedsAttentionError,
  InvoiceNumberClashError,
  PaymentBeingConfirmedError,
  isUpstreamFailure,
  raiseAlert,
} from './errors';
import { InvoiceRecordStore, isUniqueViolation } from './invoice-record.store';
import { LateInvoiceService } from './late-invoice.service';
import { creationMove } from './creation-states';

/** "Retry in N s" while another request is creating the order's invoice. */
export const PENDING_RETRY_S = 2;

/** How an attempt ends once its request was sent (or its holder died): created, closed, or still unknown. */
@Injectable()
export class CreationOutcomes {
  private readonly logger = new Logger(CreationOutcomes.name);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    private readonly late: LateInvoiceService,
    private readonly config: CheckoutConfig,
  ) {}

  /** Settles an `unknown` (or stale `pending`) creation by asking the service; a fresh `pending` one throws. */
  async settle(record: InvoiceRecord): Promise<InvoiceRecord> {
    if (record.creationState === 'created' || record.creationState === 'failed') return record;
    const options = this.config.static;
    const stale = Date.now() - record.updatedAt.getTime() > options.staleCreationMs;
    if (record.creationState === 'pending' && !stale) {
      throw new PaymentBeingConfirmedError(
        record.orderId,
        record.id,
        PENDING_RETRY_S,
        'its creation is in progress',
      );
    }
    const seen = record.creationState === 'pending' ? record.updatedAt : undefined;
    if (
      !(await this.store.transition(record.id, creationMove([record.creationState], 'pending', {}), seen))
    ) {
      return this.store.get(record.id);
    }
    const settled = await this.resolveUnknown(record, Date.now(), options);
    return settled ?? this.store.get(record.id);
  }

  /** Closes an unsettled attempt as "not created" on a person's word; the resolution is kept with `actor`. */
  async markNotCreated(record: InvoiceRecord, actor: string, note: string | null): Promise<InvoiceRecord> {
    const reason = `marked as not created by ${actor}${note ? `: ${note}` : ''}`;
    if (!(await this.closeNotCreated(record, reason, ['unknown', 'pending'])))
      return this.store.get(record.id);
    await this.store.recordResolution(record, actor, reason);
    this.logger.warn(`order ${record.orderId}: attempt ${record.id} ${reason}`);
    return this.store.get(record.id);
  }

  /** Asks until found (created), `settlesAt` passed (closed: `null`) or `deadline` over (`unknown`, throws). */
  async resolveUnknown(
    record: InvoiceRecord,
    deadline: number,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    for (;;) {
      let found: Invoice | null;
      try {
        found = await this.store.identity.findOurs(record);
      } catch (err) {
        return this.lookupFailed(record, err, options);
      }
      if (found) return this.settleCreated(record, found);
      const now = Date.now();
      const settles = record.settlesAt?.getTime() ?? 0;
      if (now >= settles) {
        const why = 'not found at the service by its referrer after the request could have landed';
        this.logger.warn(`order ${record.orderId}: attempt ${record.referrer} ${why}; closed as not created`);
        if (await this.closeNotCreated(record, why)) return null;
        const current = await this.store.get(record.id); // a late invoice was linked to it meanwhile
        return current.creationState === 'created' ? current : null;
      }
      const next = Math.min(settles, now + options.unknownOutcomeRecheckMs);
      if (next > deadline) {
        await this.store.transition(record.id, creationMove(['pending'], 'unknown', {}));
        const seconds = Math.max(1, Math.ceil((settles - now) / 1000));
        throw new PaymentBeingConfirmedError(
          record.orderId,
          record.id,
          seconds,
          'not found at the service yet',
        );
      }
      await sleep(next - now);
    }
  }

  /** A lookup failed: back to `unknown`; past `unresolvedAlertMs` the attempt needs a person (alert, once). */
  async lookupFailed(record: InvoiceRecord, err: unknown, options: ResolvedCheckoutOptions): Promise<never> {
    const why = errorMessage(err);
    const since = record.unknownSince ?? new Date();
    const stuck = Date.now() - since.getTime() >= options.unresolvedAlertMs;
    const reason = `could not ask the service whether invoice ${record.referrer} exists since ${since.toISOString()}: ${why}`;
    await this.store.transition(
      record.id,
      creationMove(['pending'], 'unknown', {
        unknownSince: since,
        ...(stuck ? { attentionReason: clip(reason, 2000) } : {}),
      }),
    );
    if (!stuck) {
      const seconds = Math.max(1, Math.ceil(options.unknownOutcomeRecheckMs / 1000));
      // The details (address, system error) go to the log only.
      this.logger.warn(`order ${record.orderId}: could not ask the service about ${record.referrer}: ${why}`);
      const down = isUpstreamFailure(err);
      const detail = down
        ? 'could not ask the service: it is unavailable'
        : `could not ask the service: ${why}`;
      throw new PaymentBeingConfirmedError(record.orderId, record.id, seconds, detail, down);
    }
    if (record.attentionReason === null) this.alert('creation_unresolved', record, reason);
    throw new InvoiceCreationNeedsAttentionError(record.orderId, record.id, reason);
  }

  private closeNotCreated(
    record: InvoiceRecord,
    reason: string,
    from: InvoiceCreationState[] = ['pending'],
  ): Promise<boolean> {
    return this.store.transition(
      record.id,
      creationMove(from, 'failed', {
        openOrderId: null,
        failureReason: reason,
        attentionReason: null,
      }),
    );
  }

  /** Stores the answer (numbers, `created`, first status) in one transaction, then handles late invoices. */
  async settleCreated(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const gross = invoice.amounts.grossCents;
    const mismatch = gross !== null && gross !== record.amountCents;
    // Written with the status (guarded by version), so waiters never see `created` without the PIX/bank-slip data.
    const created = creationMove(['pending', 'unknown'], 'created', {
      gatewayId: invoice.id,
      gatewayUuid: invoice.uuid,
      gatewayInvoiceId: invoice.invoiceId,
      amountMismatch: mismatch,
      failureReason: null,
      attentionReason: null,
      updatedAt: new Date(),
    });
    const report = { recordId: record.id, code: invoice.status.code, source: 'create' as const, invoice };
    let applied: AppliedStatus;
    try {
      // As its claim wrote it, the record has no history: one guarded statement may settle it.
      const fresh = record.statusCode === null && record.creationState === 'pending';
      applied = await this.status.apply(report, {
        record,
        known: fresh ? NO_HISTORY : undefined,
        extra: created.patch,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return this.numberClash(record, invoice);
    }
    if (mismatch) {
      const message =
        `invoice ${record.id} of order ${record.orderId}: the service's gross ${centsToDecimalString(gross)} ` +
        `differs from the order total ${centsToDecimalString(record.amountCents)}`;
      this.alert('amount_mismatch', record, message);
    }
    if (record.attempt > 1) await this.late.enforce(record.orderId);
    return record.attempt === 1 ? applied.record : this.store.get(record.id);
  }

  async numberClash(record: InvoiceRecord, invoice: Invoice): Promise<never> {
    const holder = await this.store.findByGatewayId(invoice.id);
    const error = new InvoiceNumberClashError(record.orderId, record.id, invoice.id, holder?.id ?? '?');
    await this.fail(record, error.message);
    this.alert('invoice_number_clash', record, error.message, holder?.id);
    throw error;
  }

  async fail(record: InvoiceRecord, reason: string): Promise<void> {
    const { patch } = creationMove(['pending', 'unknown'], 'failed', {
      openOrderId: null,
      failureReason: reason,
    });
    await this.store.patch(record.id, patch);
  }

  alert(kind: InvoicePaymentsAlert['kind'], record: InvoiceRecord, message: string, related?: string): void {
    const relation = related ? { relatedInvoiceRecordId: related } : {};
    const alert = { kind, orderId: record.orderId, invoiceRecordId: record.id, message, ...relation };
    raiseAlert(this.events, this.logger, alert, 'warn');
  }
}
