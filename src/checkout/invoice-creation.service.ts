import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../domain/clock';
import { SETTING_LIST } from '../options/settings.schema';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { OpenInvoiceConflictError, PaymentBeingConfirmedError } from '../core/invoice.errors';
import { InvoiceRecordStore, creationMove } from '../core/invoice-record.store';
import { CHECKOUT_OPTIONS, CHECKOUT_SETTINGS, type CheckoutSettingsSource } from './checkout.tokens';
import { CreationOutcomes } from './creation-outcomes.service';
import { mapOrderToInvoice } from './order-mapping';
import { mintStatusToken } from './status-token';
import type { CheckoutRequest, MappedInvoice } from '../core/checkout.types';

/** The order's attempt, and the status token handed out with it (its hash is on the record). */
export interface IssuedRecord {
  record: InvoiceRecord;
  statusToken: string;
}

const CREATION_POLL_MS = 25;
/** Slack on the claim's `settlesAt`, so the usual claim needs no second write before its request leaves. */
export const CLAIM_HEADROOM_MS = 100;

/** Another request is creating the order's invoice: retry in 2 s. */
function beingCreated(orderId: string, recordId: string, detail: string): PaymentBeingConfirmedError {
  return new PaymentBeingConfirmedError(orderId, recordId, 2, detail);
}

/**
 * Creates an order's invoice exactly once (the claimed row's unique `open_order_id` lets one caller send), with the
 * checkout options in force: the module options overridden by the runtime settings, if any.
 */
@Injectable()
export class InvoiceCreationService {
  private readonly logger = new Logger(InvoiceCreationService.name);
  private readonly inflight = new Map<string, Promise<IssuedRecord>>();

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly outcomes: CreationOutcomes,
    @Inject(CHECKOUT_OPTIONS) private readonly configured: ResolvedCheckoutOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CHECKOUT_SETTINGS) private readonly settings: CheckoutSettingsSource,
    private readonly gateway: GatewayClient,
  ) {}

  /** The `referrerNamespace` option, else the settings' one. */
  async referrerNamespace(): Promise<string> {
    return this.configured.referrerNamespace || this.settings.referrerNamespace();
  }

  async current(): Promise<ResolvedCheckoutOptions> {
    const s = await this.settings.getEffective();
    // An unset setting (`null`) leaves its option unset.
    const current: Record<string, unknown> = { ...this.configured };
    for (const [name, { option }] of SETTING_LIST) {
      if (option?.[0] !== 'checkout') continue;
      const value = (s as Record<string, unknown>)[name];
      current[option[1]] = Array.isArray(value) ? [...value] : (value ?? undefined);
    }
    return current as unknown as ResolvedCheckoutOptions;
  }

  /**
   * Throws `CheckoutValidationError` before anything is sent or stored. `read`: the options in force as the caller
   * already read them for this checkout (a host that built the order with them), else read now.
   */
  async prepare(
    request: CheckoutRequest,
    read?: ResolvedCheckoutOptions,
  ): Promise<{ mapped: MappedInvoice; options: ResolvedCheckoutOptions }> {
    const options = read ?? (await this.current());
    // The day the service counts in (A2), as the wire profile in force says.
    const serviceZone = (await this.gateway.wireProfile()).timeZone;
    return { mapped: mapOrderToInvoice(request, options, this.clock.now(), serviceZone), options };
  }

  /**
   * The order's invoice, created once, with a status token for the shopper: a new claim carries its token's hash; a
   * repeated call (or one that found the attempt open) gets a new token, the one before it still working. Callers
   * sharing one creation in this process share its token.
   */
  async create(request: CheckoutRequest, read?: ResolvedCheckoutOptions): Promise<IssuedRecord> {
    const { mapped, options } = await this.prepare(request, read);
    const orderId = mapped.params.payment.id;
    const running = this.inflight.get(orderId);
    if (running) {
      const shared = await running;
      this.matching(shared.record, mapped);
      return shared;
    }
    const mine = this.obtain(mapped, options);
    this.inflight.set(orderId, mine);
    try {
      return await mine;
    } finally {
      if (this.inflight.get(orderId) === mine) this.inflight.delete(orderId);
    }
  }

  /** A new status token for a record this call did not claim; the one handed out before it keeps working. */
  private async issued(record: InvoiceRecord): Promise<IssuedRecord> {
    const fresh = mintStatusToken();
    await this.store.issueStatusToken(record.id, fresh.hash);
    return { record, statusToken: fresh.token };
  }

  private async obtain(mapped: MappedInvoice, options: ResolvedCheckoutOptions): Promise<IssuedRecord> {
    const orderId = mapped.params.payment.id;
    const deadline = this.clock.now() + options.creationWaitMs;
    // The claim goes first: for a new order, the usual checkout, its INSERT is the lookup too.
    let free = true;
    for (;;) {
      if (free) {
        const token = mintStatusToken();
        const claimed = await this.store.claim({
          orderId,
          reference: mapped.reference,
          method: mapped.method,
          currency: 'BRL',
          amountCents: mapped.totalCents,
          installments: mapped.params.payment.installments ?? 1,
          shown: mapped.shown,
          namespace: await this.referrerNamespace(),
          settlesAt: new Date(this.outcomes.landsUntil(options) + CLAIM_HEADROOM_MS),
          statusTokenHash: token.hash,
        });
        if (claimed) {
          const created = await this.outcomes.send(claimed, mapped, deadline, options);
          if (created) {
            if (created.id === claimed.id) return { record: created, statusToken: token.token };
            return this.issued(created);
          }
          continue; // closed as "not created" (the next attempt gets its own referrer), or moved unsent
        }
      }
      const open = await this.store.findOpen(orderId);
      free = open === null;
      if (!open) continue;
      this.matching(open, mapped);
      if (open.creationState === 'created') return this.issued(open);
      if (open.creationState === 'unknown') {
        // Whoever flips unknown → pending resolves it; the others wait like for any pending creation.
        const taken = await this.store.moveAsRead(open, creationMove(['unknown'], 'pending', {}));
        if (taken) {
          const resolved = await this.outcomes.resolveUnknown(taken, deadline, options);
          if (resolved) return this.issued(this.matching(resolved, mapped));
        }
        continue;
      }
      if (this.clock.now() - open.updatedAt.getTime() > options.staleCreationMs) {
        // The holder died mid-creation: its request may have gone through.
        const since = open.unknownSince ?? this.clock.date();
        await this.store.moveAsRead(open, creationMove(['pending'], 'unknown', { unknownSince: since }));
        continue;
      }
      if (this.clock.now() > deadline) {
        throw beingCreated(orderId, open.id, 'another request is creating it');
      }
      await sleep(CREATION_POLL_MS);
    }
  }

  /** Resolves an `unknown` (or stale `pending`) creation by asking the service; a fresh `pending` one throws. */
  async resolveCreation(record: InvoiceRecord): Promise<InvoiceRecord> {
    if (record.creationState === 'created' || record.creationState === 'failed') return record;
    const stale = this.clock.now() - record.updatedAt.getTime() > this.configured.staleCreationMs;
    if (record.creationState === 'pending' && !stale) {
      throw beingCreated(record.orderId, record.id, 'its creation is in progress');
    }
    const taken = await this.takeToResolve(record);
    if (!taken) return this.store.get(record.id);
    const resolved = await this.outcomes.resolveUnknown(taken, this.clock.now(), this.configured);
    return resolved ?? this.store.get(record.id);
  }

  /**
   * The record moved to `pending` for this caller to resolve, or `null` when another caller moved it first. A stale
   * `pending` one is taken only as read (its holder may still write); an `unknown` one by its state.
   */
  private async takeToResolve(record: InvoiceRecord): Promise<InvoiceRecord | null> {
    const move = creationMove([record.creationState], 'pending', {});
    if (record.creationState === 'pending') return this.store.moveAsRead(record, move);
    const moved = await this.store.transition(record.id, move);
    return moved ? record : null;
  }

  /** Closes an unsettled attempt as "not created" on a person's word; the resolution is kept with `actor`. */
  async markNotCreated(record: InvoiceRecord, actor: string, note: string | null): Promise<InvoiceRecord> {
    const reason = `marked as not created by ${actor}${note ? `: ${note}` : ''}`;
    const closed = await this.store.closeNotCreated(record.id, reason, ['unknown', 'pending']);
    if (!closed) return this.store.get(record.id);
    await this.store.recordResolution(record, actor, reason);
    this.logger.warn(`order ${record.orderId}: attempt ${record.id} ${reason}`);
    return this.store.get(record.id);
  }

  private matching(open: InvoiceRecord, mapped: MappedInvoice): InvoiceRecord {
    if (open.method !== mapped.method) {
      const conflict = `it is a ${open.method} invoice, not ${mapped.method}`;
      throw new OpenInvoiceConflictError(open.orderId, open.id, conflict);
    }
    if (open.amountCents !== mapped.totalCents) {
      const was = centsToDecimalString(open.amountCents);
      const conflict = `it is for ${was}, the order now totals ${centsToDecimalString(mapped.totalCents)}`;
      throw new OpenInvoiceConflictError(open.orderId, open.id, conflict);
    }
    return open;
  }
}
