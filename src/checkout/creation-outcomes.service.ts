import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { messageOf, raiseAlert, type InvoicePaymentsAlert } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { CLOCK, type Clock, secondsToWait } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import type { StatusReportSource } from '../domain/status-table';
import { NO_HISTORY, type AppliedStatus } from '../core/status-report';
import { GatewayOutcomeUnknownError, GatewayValidationError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { withReferrer } from '../core/attempt-claim';
import type { MappedInvoice } from '../core/checkout.types';
import {
  InvoiceCreationFailedError,
  InvoiceCreationNeedsAttentionError,
  InvoiceNumberClashError,
  PaymentBeingConfirmedError,
  isUpstreamFailure,
  CreationMoveRefusedError,
} from '../core/invoice.errors';
import { InvoiceRecordStore, isUniqueViolation, creationMove } from '../core/invoice-record.store';
import { OnePayableInvoice } from './one-payable-invoice.service';

/**
 * An attempt's one create request, and how the attempt ends: `settles_at` stored before the request leaves, the
 * answer recorded, a failure sorted into "not created" (the order free again) or an unknown outcome, looked up (never
 * sent again) until found (created), past its `settles_at` (closed) or still unknown.
 */
@Injectable()
export class CreationOutcomes {
  private readonly logger = new Logger(CreationOutcomes.name);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    private readonly onePayable: OnePayableInvoice,
    private readonly gateway: GatewayClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * `null` when the attempt was closed as "not created", or moved before its request left (the order is decided
   * again). The answer is recorded on the record as stored, so its guarded status write lands.
   */
  async send(
    claimed: InvoiceRecord,
    mapped: MappedInvoice,
    deadline: number,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    // Stored before the request leaves: until then it could land. The claim's headroom usually covers it.
    const landsUntil = this.landsUntil(options);
    let record: InvoiceRecord | null = claimed;
    if (landsUntil > (claimed.settlesAt?.getTime() ?? 0)) {
      const later = creationMove(['pending'], 'pending', { settlesAt: new Date(landsUntil) });
      record = await this.store.moveAsRead(claimed, later);
      if (!record) return null;
    }
    let invoice: Invoice;
    try {
      invoice = await this.gateway.createInvoice(withReferrer(mapped.params, record.referrer));
    } catch (err) {
      if (err instanceof GatewayOutcomeUnknownError) {
        // Still `pending`, so this caller looks it up and the others wait.
        this.logger.warn(`order ${record.orderId}: creation outcome unknown (${err.reason}); looking it up`);
        const unknown = creationMove(['pending'], 'pending', { unknownSince: this.clock.date() });
        // Moved meanwhile: looked up as it was, with the time its outcome became unknown.
        const looked = (await this.store.moveAsRead(record, unknown)) ?? { ...record, ...unknown.patch };
        return this.resolveUnknown(looked, deadline, options);
      }
      if (isGatewayError(err)) {
        // The service refused (or provably never got) the request: nothing exists there, the order is free again.
        await this.store.closeNotCreated(record.id, err.message, ['pending', 'unknown']);
        if (err instanceof GatewayValidationError) {
          throw new InvoiceCreationFailedError(record.orderId, err.message, err.fields);
        }
        throw err;
      }
      // Not a gateway answer at all: the request may have left, so the next caller looks it up first.
      await this.store.transition(
        record.id,
        creationMove(['pending'], 'unknown', { unknownSince: this.clock.date() }),
      );
      throw err;
    }
    return this.recordCreated(record, invoice);
  }

  /** Until when a create request sent now could still land at the service. */
  landsUntil(options: ResolvedCheckoutOptions): number {
    return this.clock.now() + this.gateway.createTimeoutMs + options.lateCreationMarginMs;
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
      if (found) return this.recordCreated(record, found);
      const now = this.clock.now();
      const settles = record.settlesAt?.getTime() ?? 0;
      if (now >= settles) {
        const why = 'not found at the service by its referrer after the request could have landed';
        this.logger.warn(`order ${record.orderId}: attempt ${record.referrer} ${why}; closed as not created`);
        if (await this.store.closeNotCreated(record.id, why)) return null;
        const current = await this.store.get(record.id); // a late invoice was linked to it meanwhile
        return current.creationState === 'created' ? current : null;
      }
      const next = Math.min(settles, now + options.unknownOutcomeRecheckMs);
      if (next > deadline) {
        await this.store.transition(record.id, creationMove(['pending'], 'unknown', {}));
        const wait = secondsToWait(settles - now);
        throw new PaymentBeingConfirmedError(record.orderId, record.id, wait, 'not found at the service yet');
      }
      await sleep(next - now);
    }
  }

  /** A lookup failed: back to `unknown`; past `unresolvedAlertMs` the attempt needs a person (alert, once). */
  private async lookupFailed(
    record: InvoiceRecord,
    err: unknown,
    options: ResolvedCheckoutOptions,
  ): Promise<never> {
    const why = messageOf(err);
    const since = record.unknownSince ?? this.clock.date();
    const stuck = this.clock.now() - since.getTime() >= options.unresolvedAlertMs;
    const reason = `could not ask the service whether invoice ${record.referrer} exists since ${since.toISOString()}: ${why}`;
    await this.store.transition(
      record.id,
      creationMove(['pending'], 'unknown', {
        unknownSince: since,
        ...(stuck ? { attentionReason: clip(reason, 2000) } : {}),
      }),
    );
    if (!stuck) {
      const seconds = secondsToWait(options.unknownOutcomeRecheckMs);
      // The details (address, system error) go to the log only.
      this.logger.warn(`order ${record.orderId}: could not ask the service about ${record.referrer}: ${why}`);
      const down = isUpstreamFailure(err);
      const detail = `could not ask the service: ${down ? 'it is unavailable' : why}`;
      throw new PaymentBeingConfirmedError(record.orderId, record.id, seconds, detail, down);
    }
    if (record.attentionReason === null) this.alert('creation_unresolved', record, reason);
    throw new InvoiceCreationNeedsAttentionError(record.orderId, record.id, reason);
  }

  /** Stores the answer (numbers, `created`, first status) in one write, then handles late invoices. */
  async recordCreated(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const gross = invoice.amounts.grossCents;
    const mismatch = gross !== null && gross !== record.amountCents;
    // Only ever raised here: a payment's mismatch, flagged by the status path meanwhile, must stay.
    const fields = { ...(mismatch ? { amountMismatch: true } : {}), failureReason: null };
    let applied: AppliedStatus;
    try {
      applied = await this.link(record, invoice, 'create', fields);
    } catch (err) {
      if (!isUniqueViolation(err) && !(err instanceof CreationMoveRefusedError)) throw err;
      return this.numberClash(record, invoice);
    }
    if (mismatch) {
      const message =
        `invoice ${record.id} of order ${record.orderId}: the service's gross ${centsToDecimalString(gross)} ` +
        `differs from the order total ${centsToDecimalString(record.amountCents)}`;
      this.alert('amount_mismatch', record, message);
    }
    // A later attempt, or one whose slot was closed while its answer was on the way (marked not created, then a
    // retry): one payable invoice per order.
    if (record.attempt === 1 && applied.record.openOrderId !== null) return applied.record;
    await this.onePayable.enforce(record.orderId);
    return this.store.get(record.id);
  }

  /**
   * Links `invoice` to its attempt's record: numbers, `created` and `fields` written with its status, in one write,
   * so nobody sees `created` without the PIX/bank-slip data; onto a record holding no other invoice only (else a
   * unique violation or `CreationMoveRefusedError`, nothing written). A closed attempt is linked too: its invoice
   * exists, `enforce` decides.
   */
  async link(
    record: InvoiceRecord,
    invoice: Invoice,
    source: StatusReportSource,
    fields: Partial<InvoiceRecord>,
  ): Promise<AppliedStatus> {
    const created = creationMove(['pending', 'unknown', 'failed'], 'created', {
      gatewayId: invoice.id,
      gatewayUuid: invoice.uuid,
      gatewayInvoiceId: invoice.invoiceId || null,
      attentionReason: null,
      ...fields,
      // On the reconciliation's schedule in this same write, whatever happens after (a lost webhook is still seen): a
      // closed attempt's late invoice is checked from now; any other is due as a record the reconciliation never saw.
      // Either holds even if the record was closed (and taken off the schedule) after it was read.
      nextCheckAt: record.creationState === 'failed' ? this.clock.date() : null,
      updatedAt: this.clock.date(),
    });
    const report = { recordId: record.id, code: invoice.status.code, source, invoice };
    // As its claim wrote it, the record has no history: one guarded statement may write it.
    const known = record.statusCode === null && record.creationState === 'pending' ? NO_HISTORY : undefined;
    return this.status.apply(report, { record, known, creation: created });
  }

  /** The record did not take the answer's number: linked meanwhile to it (adopted), else a clash. */
  private async numberClash(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const now = await this.store.get(record.id);
    if (now.gatewayId === invoice.id) return now;
    const holder = await this.store.rows.findOneBy({ gatewayId: invoice.id });
    const held = now.gatewayId;
    const error = new InvoiceNumberClashError(record.orderId, record.id, invoice.id, holder?.id ?? '?', held);
    if (held === null) await this.store.closeNotCreated(record.id, error.message, ['pending', 'unknown']);
    this.alert('invoice_number_clash', record, error.message, holder?.id);
    throw error;
  }

  private alert(
    kind: InvoicePaymentsAlert['kind'],
    record: InvoiceRecord,
    message: string,
    related?: string,
  ): void {
    const relation = related ? { relatedInvoiceRecordId: related } : {};
    const alert = { kind, orderId: record.orderId, invoiceRecordId: record.id, message, ...relation };
    raiseAlert(this.events, this.logger, alert, 'warn');
  }
}
