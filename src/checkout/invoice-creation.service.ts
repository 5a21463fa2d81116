import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { GatewayOutcomeUnknownError, GatewayValidationError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { CheckoutConfig } from './checkout-config.service';
import type { ResolvedCheckoutOptions } from './checkout.options';
import { CREATION_POLL_MS, MAX_RECREATIONS } from './constants';
import {
  InvoiceCreationFailedError,
  InvoiceCreationUnresolvedError,
  OpenInvoiceConflictError,
} from './errors';
import { InvoiceRecordStore } from './invoice-record.store';
import { CheckoutRequest, MappedInvoice, mapOrderToInvoice, withReferrer } from './order-mapping';

/**
 * Creates an order's invoice exactly once.
 *
 * The database is the guard: an attempt starts by inserting a `pending` row whose unique `open_order_id` is the
 * order id, so only one caller (in any process) holds the order, and only that caller sends the create request.
 * Everyone else waits for the row to settle and gets the same invoice. Callers in the same process share the
 * holder's promise instead of polling. A creation whose outcome is unknown (timeout after sending, dropped
 * connection, 5xx) is looked up by its referrer before anything is created again; a holder that died is taken over
 * once its claim is older than `staleCreationMs`.
 */
@Injectable()
export class InvoiceCreationService {
  private readonly logger = new Logger(InvoiceCreationService.name);
  private readonly inflight = new Map<string, Promise<InvoiceRecord>>();

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly status: InvoiceStatusService,
    private readonly config: CheckoutConfig,
    private readonly events: EventEmitter2,
  ) {}

  /** Validates and maps the request (throws `CheckoutValidationError` before anything is sent or stored). */
  async prepare(
    request: CheckoutRequest,
  ): Promise<{ mapped: MappedInvoice; options: ResolvedCheckoutOptions }> {
    const options = await this.config.current();
    return { mapped: mapOrderToInvoice(request, options), options };
  }

  /** The order's open invoice for this request: the existing one, or a new one created once. */
  async create(request: CheckoutRequest): Promise<InvoiceRecord> {
    const { mapped, options } = await this.prepare(request);
    const orderId = mapped.params.payment.id;
    const running = this.inflight.get(orderId);
    if (running) return this.matching(await running, mapped);
    const mine = this.obtain(mapped, options);
    this.inflight.set(orderId, mine);
    try {
      return await mine;
    } finally {
      if (this.inflight.get(orderId) === mine) this.inflight.delete(orderId);
    }
  }

  /**
   * Settles a record whose creation is not settled (`unknown`, or `pending` past `staleCreationMs`): looks the
   * invoice up by its referrer; found → stored as created; not found → closed as failed (nothing exists to pay).
   * Used before operating on such a record. Returns the record as it then stands.
   */
  async settle(record: InvoiceRecord): Promise<InvoiceRecord> {
    if (record.creationState === 'created' || record.creationState === 'failed') return record;
    const stale = Date.now() - record.updatedAt.getTime() > this.config.static.staleCreationMs;
    if (record.creationState === 'pending' && !stale) {
      throw new InvoiceCreationUnresolvedError(record.orderId, 'its creation is still in progress');
    }
    const seen = record.creationState === 'pending' ? record.updatedAt : undefined;
    if (
      !(await this.store.transition(record.id, [record.creationState], { creationState: 'pending' }, seen))
    ) {
      return this.store.get(record.id);
    }
    const found = await this.lookUp(record);
    if (found) return this.settleCreated(record, found);
    await this.fail(record, 'not found at the service by its referrer: the creation never took effect');
    return this.store.get(record.id);
  }

  private async obtain(mapped: MappedInvoice, options: ResolvedCheckoutOptions): Promise<InvoiceRecord> {
    const orderId = mapped.params.payment.id;
    const deadline = Date.now() + options.creationWaitMs;
    for (let first = true; ; first = false) {
      if (!first && Date.now() > deadline) {
        throw new InvoiceCreationUnresolvedError(
          orderId,
          'another request is still creating it; try again shortly',
        );
      }
      const open = await this.store.findOpen(orderId);
      if (!open) {
        const claimed = await this.store.claim({
          orderId,
          reference: mapped.reference,
          method: mapped.method,
          currency: 'BRL',
          amountCents: mapped.totalCents,
          installments: mapped.params.payment.installments ?? 1,
        });
        if (claimed) return this.send(claimed, mapped, 0);
        continue; // another caller holds the order: read its row
      }
      this.matching(open, mapped);
      if (open.creationState === 'created') return open;
      if (open.creationState === 'unknown') {
        // Whoever flips unknown → pending resolves it; the others wait like for any pending creation.
        if (await this.store.transition(open.id, ['unknown'], { creationState: 'pending' })) {
          return this.resolveUnknown(open, mapped, 0);
        }
        continue;
      }
      if (
        open.creationState === 'pending' &&
        Date.now() - open.updatedAt.getTime() > options.staleCreationMs
      ) {
        // The holder died mid-creation: its request may have gone through, so treat it as an unknown outcome.
        await this.store.transition(open.id, ['pending'], { creationState: 'unknown' }, open.updatedAt);
        continue;
      }
      await sleep(CREATION_POLL_MS);
    }
  }

  /** The claim holder sends the create request; `recreations` counts creations after a "not found" lookup. */
  private async send(
    record: InvoiceRecord,
    mapped: MappedInvoice,
    recreations: number,
  ): Promise<InvoiceRecord> {
    let invoice: Invoice;
    try {
      invoice = await this.gateway.createInvoice(withReferrer(mapped.params, record.referrer));
    } catch (err) {
      if (err instanceof GatewayOutcomeUnknownError) {
        this.logger.warn(`order ${record.orderId}: creation outcome unknown (${err.reason}); looking it up`);
        return this.resolveUnknown(record, mapped, recreations);
      }
      if (isGatewayError(err)) {
        // The service refused (or provably never got) the request: nothing exists there, the order is free again.
        await this.fail(record, err.message);
        if (err instanceof GatewayValidationError) {
          throw new InvoiceCreationFailedError(record.orderId, err.message, err.fields);
        }
        throw err;
      }
      // Not a gateway answer at all: the request may have left, so the next caller looks it up first.
      await this.store.transition(record.id, ['pending'], { creationState: 'unknown' });
      throw err;
    }
    return this.settleCreated(record, invoice);
  }

  private async resolveUnknown(record: InvoiceRecord, mapped: MappedInvoice, recreations: number) {
    const found = await this.lookUp(record);
    if (found) return this.settleCreated(record, found);
    if (recreations >= MAX_RECREATIONS) {
      await this.store.transition(record.id, ['pending'], { creationState: 'unknown' });
      throw new InvoiceCreationUnresolvedError(
        record.orderId,
        'the service keeps failing to answer; try again later',
      );
    }
    // Not there: the request never took effect. Create again under the same referrer, so a late arrival of the
    // first request and this one can still be told apart from a second invoice by the lookup.
    return this.send(record, mapped, recreations + 1);
  }

  /**
   * The invoice created under the record's referrer, or `null`. Not found at first, it looks once more after
   * `unknownOutcomeRecheckMs`: a slow service may still be storing a request the client gave up on. A failed
   * lookup leaves the record `unknown`.
   */
  private async lookUp(record: InvoiceRecord): Promise<Invoice | null> {
    try {
      const found = await this.gateway.findInvoiceByReferrer(record.referrer);
      if (found) return found;
      await sleep(this.config.static.unknownOutcomeRecheckMs);
      return await this.gateway.findInvoiceByReferrer(record.referrer);
    } catch (err) {
      await this.store.transition(record.id, ['pending'], { creationState: 'unknown' });
      const why = err instanceof Error ? err.message : String(err);
      throw new InvoiceCreationUnresolvedError(
        record.orderId,
        `could not ask the service whether it exists: ${why}`,
      );
    }
  }

  private async settleCreated(record: InvoiceRecord, invoice: Invoice): Promise<InvoiceRecord> {
    const gross = invoice.amounts.grossCents;
    const mismatch = gross !== null && gross !== record.amountCents;
    await this.store.patch(record.id, {
      gatewayId: invoice.id,
      gatewayUuid: invoice.uuid,
      gatewayInvoiceId: invoice.invoiceId,
      amountMismatch: mismatch,
      failureReason: null,
    });
    await this.status.applyReport({
      recordId: record.id,
      code: invoice.status.code,
      source: 'create',
      invoice,
    });
    // Last: waiters return as soon as they see `created`, and by now the row carries the PIX and bank-slip data.
    await this.store.transition(record.id, ['pending', 'unknown'], { creationState: 'created' });
    if (mismatch) this.alertMismatch(record, gross);
    return this.store.get(record.id);
  }

  private async fail(record: InvoiceRecord, reason: string): Promise<void> {
    await this.store.patch(record.id, { creationState: 'failed', openOrderId: null, failureReason: reason });
  }

  /** The open invoice serves this request only if it is for the same method and amount. */
  private matching(open: InvoiceRecord, mapped: MappedInvoice): InvoiceRecord {
    if (open.method !== mapped.method) {
      throw new OpenInvoiceConflictError(
        open.orderId,
        open.id,
        `it is a ${open.method} invoice, not ${mapped.method}`,
      );
    }
    if (open.amountCents !== mapped.totalCents) {
      const [was, now] = [open.amountCents, mapped.totalCents].map(centsToDecimalString);
      throw new OpenInvoiceConflictError(
        open.orderId,
        open.id,
        `it is for ${was}, the order now totals ${now}`,
      );
    }
    return open;
  }

  private alertMismatch(record: InvoiceRecord, gross: number): void {
    const message =
      `invoice ${record.id} of order ${record.orderId}: the service's gross ${centsToDecimalString(gross)} ` +
      `differs from the order total ${centsToDecimalString(record.amountCents)}`;
    this.logger.warn(message);
    const alert: InvoicePaymentsAlert = {
      kind: 'amount_mismatch',
      orderId: record.orderId,
      invoiceRecordId: record.id,
      message,
    };
    this.events.emit(InvoicePaymentsEvents.Alert, alert);
  }
}
