import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { GatewayOutcomeUnknownError, GatewayValidationError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { CheckoutConfig } from './checkout-config.service';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { CLAIM_HEADROOM_MS, CREATION_POLL_MS, PENDING_RETRY_S } from './constants';
import { InvoiceCreationFailedError, OpenInvoiceConflictError, PaymentBeingConfirmedError } from './errors';
import { InvoiceRecordStore } from './invoice-record.store';
import { CreationOutcomes } from './creation-outcomes.service';
import { CheckoutRequest, MappedInvoice, mapOrderToInvoice, withReferrer } from './order-mapping';
import { creationMove } from './creation-states';

/**
 * Creates an order's invoice exactly once.
 *
 * The database is the guard: an attempt starts by inserting a `pending` row whose unique `open_order_id` is the
 * order id, so only one caller (in any process) holds the order, and only that caller sends the create request.
 * Everyone else waits for the row to settle and gets the same invoice. Callers in the same process share the
 * holder's promise instead of polling.
 *
 * A creation whose outcome is unknown (timeout after sending, dropped connection, 5xx) is settled by the service's
 * answer, never by a guess made too early: it is looked up by its referrer, and while the request could still land
 * (`settlesAt`: sent + the client's create timeout + `lateCreationMarginMs`, written by the claim itself) nothing
 * new is created; callers get `PaymentBeingConfirmedError` ("retry in N s"). Not found after that instant, the
 * attempt is closed as "not created" and the next attempt gets a new referrer, so an invoice of the old one that
 * still shows up is told apart and handled as a late invoice (`LateInvoiceService`). Lookups failing for longer
 * than `unresolvedAlertMs` turn the session `requires_more` with an alert, for the admin API to resolve. A holder
 * that died is taken over once its claim is older than `staleCreationMs`.
 */
@Injectable()
export class InvoiceCreationService {
  private readonly logger = new Logger(InvoiceCreationService.name);
  private readonly inflight = new Map<string, Promise<InvoiceRecord>>();

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly config: CheckoutConfig,
    private readonly outcomes: CreationOutcomes,
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
   * Settles a record whose creation is not settled (`unknown`, or `pending` past `staleCreationMs`) by asking the
   * service: found → stored as created; not found once `settlesAt` has passed → closed as "not created"; not found
   * before → `PaymentBeingConfirmedError`. Used before operating on such a record, and by the admin's re-check.
   * Returns the record as it then stands.
   */
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
    const settled = await this.outcomes.resolveUnknown(record, Date.now(), options);
    return settled ?? this.store.get(record.id);
  }

  /**
   * Closes an attempt whose creation is not settled as "not created", on a person's word (they checked the
   * service's panel): the order is free again, and an invoice of it that shows up anyway is handled as a late
   * invoice. Recorded in the status history with `actor` and the time. Returns the record as it then stands.
   */
  async markNotCreated(record: InvoiceRecord, actor: string, note: string | null): Promise<InvoiceRecord> {
    const reason = `marked as not created by ${actor}${note ? `: ${note}` : ''}`;
    const closed = await this.store.transitionUnlinked(
      record.id,
      creationMove(['unknown', 'pending'], 'failed', {
        openOrderId: null,
        failureReason: reason,
        attentionReason: null,
      }),
    );
    if (!closed) return this.store.get(record.id);
    await this.store.recordResolution(record, actor, reason);
    this.logger.warn(`order ${record.orderId}: attempt ${record.id} ${reason}`);
    return this.store.get(record.id);
  }

  private async obtain(mapped: MappedInvoice, options: ResolvedCheckoutOptions): Promise<InvoiceRecord> {
    const orderId = mapped.params.payment.id;
    const deadline = Date.now() + options.creationWaitMs;
    // The claim goes first: for a new order, the usual checkout, its INSERT is the lookup too.
    let free = true;
    for (;;) {
      if (free) {
        const claimed = await this.claim(mapped, options);
        if (claimed) {
          const created = await this.send(claimed, mapped, deadline, options);
          if (created) return created;
          continue; // the attempt was closed as "not created": the next one gets its own referrer
        }
      }
      const open = await this.store.findOpen(orderId);
      free = open === null; // closed since the claim was refused: claim again
      if (!open) continue;
      this.matching(open, mapped);
      if (open.creationState === 'created') return open;
      if (open.creationState === 'unknown') {
        // Whoever flips unknown → pending resolves it; the others wait like for any pending creation.
        if (await this.store.transition(open.id, creationMove(['unknown'], 'pending', {}), open.updatedAt)) {
          const resolved = await this.outcomes.resolveUnknown(open, deadline, options);
          if (resolved) return this.matching(resolved, mapped);
        }
        continue;
      }
      if (Date.now() - open.updatedAt.getTime() > options.staleCreationMs) {
        // The holder died mid-creation: its request may have gone through, so treat it as an unknown outcome.
        await this.store.transition(
          open.id,
          creationMove(['pending'], 'unknown', { unknownSince: open.unknownSince ?? new Date() }),
          open.updatedAt,
        );
        continue;
      }
      if (Date.now() > deadline) {
        throw new PaymentBeingConfirmedError(
          orderId,
          open.id,
          PENDING_RETRY_S,
          'another request is creating it',
        );
      }
      await sleep(CREATION_POLL_MS);
    }
  }

  /**
   * The claim holder sends the create request. Returns the created record, or `null` when the attempt was closed
   * as "not created" (the caller starts the next attempt).
   */
  private async send(
    record: InvoiceRecord,
    mapped: MappedInvoice,
    deadline: number,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    // Until `settlesAt` the request could still land at the service: no other invoice for the order before it.
    const landsUntil = this.landsUntil(options);
    const sent =
      landsUntil > (record.settlesAt?.getTime() ?? 0)
        ? { ...record, settlesAt: new Date(landsUntil) }
        : record;
    if (sent !== record) await this.store.patch(record.id, { settlesAt: sent.settlesAt });
    let invoice: Invoice;
    try {
      invoice = await this.gateway.createInvoice(withReferrer(mapped.params, record.referrer));
    } catch (err) {
      if (err instanceof GatewayOutcomeUnknownError) {
        this.logger.warn(`order ${record.orderId}: creation outcome unknown (${err.reason}); looking it up`);
        await this.store.patch(record.id, { unknownSince: new Date() });
        return this.outcomes.resolveUnknown({ ...sent, unknownSince: new Date() }, deadline, options);
      }
      if (isGatewayError(err)) {
        // The service refused (or provably never got) the request: nothing exists there, the order is free again.
        await this.outcomes.fail(record, err.message);
        if (err instanceof GatewayValidationError) {
          throw new InvoiceCreationFailedError(record.orderId, err.message, err.fields);
        }
        throw err;
      }
      // Not a gateway answer at all: the request may have left, so the next caller looks it up first.
      await this.store.transition(
        record.id,
        creationMove(['pending'], 'unknown', { unknownSince: new Date() }),
      );
      throw err;
    }
    return this.outcomes.settleCreated(sent, invoice);
  }

  /** A new attempt for the order, or `null` when it has an open one. */
  private async claim(
    mapped: MappedInvoice,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    return this.store.claim({
      orderId: mapped.params.payment.id,
      reference: mapped.reference,
      method: mapped.method,
      currency: 'BRL',
      amountCents: mapped.totalCents,
      installments: mapped.params.payment.installments ?? 1,
      shown: mapped.shown,
      namespace: await this.config.referrerNamespace(),
      settlesAt: new Date(this.landsUntil(options) + CLAIM_HEADROOM_MS),
    });
  }

  /** Until when a create request sent now could still land at the service. */
  private landsUntil(options: ResolvedCheckoutOptions): number {
    return Date.now() + this.gateway.createTimeoutMs + options.lateCreationMarginMs;
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
}
