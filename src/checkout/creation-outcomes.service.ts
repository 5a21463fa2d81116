import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { InvoiceStatusService, type AppliedStatus } from '../core/invoice-status.service';
import { NO_HISTORY } from '../core/status-plan';
import { clip } from '../core/text-bounds';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import {
  InvoiceCreationNeedsAttentionError,
  InvoiceNumberClashError,
  PaymentBeingConfirmedError,
  isUpstreamFailure,
} from './errors';
import { InvoiceRecordStore, isUniqueViolation } from './invoice-record.store';
import { LateInvoiceService } from './late-invoice.service';
import { creationMove } from './creation-states';

/**
 * How an attempt of {@link InvoiceCreationService} ends once its request has been sent: created (the invoice's
 * numbers and status stored, late invoices of earlier attempts handled), closed as "not created", or still unknown
 * (the service is asked by the referrer until the request can no longer land). Alerts go out as events.
 */
@Injectable()
export class CreationOutcomes {
  private readonly logger = new Logger(CreationOutcomes.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: InvoiceRecordStore,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    private readonly late: LateInvoiceService,
  ) {}

  /**
   * The holder of an attempt whose outcome is unknown (its row `pending`) asks the service until it can decide:
   * found → created; not found once `settlesAt` passed → closed as "not created" (`null`); still inside the window
   * when the caller's wait (`deadline`) is over → back to `unknown` and `PaymentBeingConfirmedError`.
   */
  async resolveUnknown(
    record: InvoiceRecord,
    deadline: number,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    for (;;) {
      let found: Invoice | null;
      try {
        // By identity: an invoice under this referrer that is not the one sent (another store's) is not this one.
        found = await this.store.identity.findOurs(record);
      } catch (err) {
        return this.lookupFailed(record, err, options);
      }
      if (found) return this.settleCreated(record, found);
      const now = Date.now();
      const settles = record.settlesAt?.getTime() ?? 0;
      if (now >= settles) {
        const why = 'not found at the service by its referrer after the request could have landed';
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
    const why = err instanceof Error ? err.message : String(err);
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
      // The details (address, system error) go to the log; the caller's message is a plain sentence.
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

  /** Closes the attempt unless an invoice was linked to it meanwhile; frees the order. */
  closeNotCreated(record: InvoiceRecord, reason: string): Promise<boolean> {
    this.logger.warn(`order ${record.orderId}: attempt ${record.referrer} ${reason}; closed as not created`);
    return this.store.transitionUnlinked(
      record.id,
      creationMove(['pending'], 'failed', {
        openOrderId: null,
        failureReason: reason,
        attentionReason: null,
      }),
    );
  }

  /**
   * Stores the service's answer for an attempt in one transaction: the invoice's numbers, `created` and its first
   * status with its history; the host hears of the status once that has committed. Late invoices of earlier
   * attempts are then handled (an attempt 1 has none). Returns the record as written.
   */
  async settleCreated(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const gross = invoice.amounts.grossCents;
    const mismatch = gross !== null && gross !== record.amountCents;
    // Waiters return as soon as they see `created`: written with the status, the PIX and bank-slip data at once,
    // by the status write (the move is its `extra`; the row's state is not compared: the status path locks or
    // guards the row by its version instead).
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
      // A record as its claim wrote it has no status and no history: on PostgreSQL one guarded statement settles
      // it; if anything wrote it since (a webhook matched by referrer), the locked path decides instead.
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
    // A late invoice of an earlier attempt may be open or paid already: keep the order at one payable invoice.
    if (record.attempt > 1) await this.late.enforce(record.orderId);
    // Only an earlier attempt's invoice (enforce) could have changed this row since it was written.
    return record.attempt === 1 ? applied.record : this.store.get(record.id);
  }

  /** The service answered a number another record holds: close the attempt, tell the store, free the order. */
  async numberClash(record: InvoiceRecord, invoice: Invoice): Promise<never> {
    const holder = await this.store.findByGatewayId(invoice.id);
    const error = new InvoiceNumberClashError(record.orderId, record.id, invoice.id, holder?.id ?? '?');
    await this.fail(record, error.message);
    this.alert('invoice_number_clash', record, error.message, holder?.id ?? null);
    throw error;
  }

  async fail(record: InvoiceRecord, reason: string): Promise<void> {
    const { patch } = creationMove(['pending', 'unknown'], 'failed', {
      openOrderId: null,
      failureReason: reason,
    });
    await this.store.patch(record.id, patch);
  }

  alert(
    kind: InvoicePaymentsAlert['kind'],
    record: InvoiceRecord,
    message: string,
    related: string | null = null,
  ): void {
    this.logger.warn(message);
    const alert: InvoicePaymentsAlert = {
      kind,
      orderId: record.orderId,
      invoiceRecordId: record.id,
      message,
      ...(related ? { relatedInvoiceRecordId: related } : {}),
    };
    try {
      this.events.emit(InvoicePaymentsEvents.Alert, alert);
    } catch (err) {
      this.logger.error(`a listener of ${InvoicePaymentsEvents.Alert} threw: ${String(err)}`);
    }
  }
}
