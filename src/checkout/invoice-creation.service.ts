import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  SETTING_LIST,
  type CheckoutSettingName,
  type InvoicePaymentsSettingsValues,
} from '../options/settings.schema';
import { GatewayOutcomeUnknownError, GatewayValidationError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { InvoiceCreationFailedError, OpenInvoiceConflictError, PaymentBeingConfirmedError } from '../core/invoice.errors';
import { creationMove } from '../core/creation-move';
import { InvoiceRecordStore, withReferrer } from '../core/invoice-record.store';
import { CreationOutcomes } from './creation-outcomes.service';
import { mapOrderToInvoice } from './order-mapping';
import { mintStatusToken } from './status-token';
import type { CheckoutRequest, MappedInvoice } from '../core/checkout.types';

/** The order's attempt, and the status token handed out with it (its hash is on the record). */
export interface IssuedRecord {
  record: InvoiceRecord;
  statusToken: string;
}

/** What {@link InvoiceCreationService.obtain} found or created; `statusToken` when the record was claimed with it. */
interface Obtained {
  record: InvoiceRecord;
  statusToken: string | null;
}

const CREATION_POLL_MS = 25;
/** Slack on the claim's `settlesAt`, so the usual claim needs no second write before its request leaves. */
export const CLAIM_HEADROOM_MS = 100;

/** Another request is creating the order's invoice: retry in 2 s. */
function beingCreated(orderId: string, recordId: string, detail: string): PaymentBeingConfirmedError {
  return new PaymentBeingConfirmedError(orderId, recordId, 2, detail);
}

export const CHECKOUT_OPTIONS = Symbol('INVOICE_PAYMENTS_CHECKOUT_OPTIONS');

/** The runtime settings (admin panel) that override the checkout options; optional. */
export const CHECKOUT_SETTINGS = Symbol('INVOICE_PAYMENTS_CHECKOUT_SETTINGS');

export interface CheckoutSettingsSource {
  getEffective(): Promise<Pick<InvoicePaymentsSettingsValues, CheckoutSettingName>>;
  referrerNamespace?(): Promise<string>;
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
    private readonly gateway: GatewayClient,
    private readonly outcomes: CreationOutcomes,
    @Inject(CHECKOUT_OPTIONS) private readonly configured: ResolvedCheckoutOptions,
    @Optional() @Inject(CHECKOUT_SETTINGS) private readonly settings?: CheckoutSettingsSource | null,
  ) {}

  /** The `referrerNamespace` option, else the settings' one; `''` only for a checkout without settings. */
  async referrerNamespace(): Promise<string> {
    if (this.configured.referrerNamespace) return this.configured.referrerNamespace;
    return this.settings?.referrerNamespace ? this.settings.referrerNamespace() : '';
  }

  async current(): Promise<ResolvedCheckoutOptions> {
    if (!this.settings) return this.configured;
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

  /** Throws `CheckoutValidationError` before anything is sent or stored. */
  async prepare(
    request: CheckoutRequest,
  ): Promise<{ mapped: MappedInvoice; options: ResolvedCheckoutOptions }> {
    const options = await this.current();
    return { mapped: mapOrderToInvoice(request, options), options };
  }

  /**
   * The order's invoice, created once, with a status token for the shopper: a new claim carries its token's hash; a
   * repeated call (or one that found the attempt open) gets a new token, the one before it still working. Callers
   * sharing one creation in this process share its token.
   */
  async create(request: CheckoutRequest): Promise<IssuedRecord> {
    const { mapped, options } = await this.prepare(request);
    const orderId = mapped.params.payment.id;
    const running = this.inflight.get(orderId);
    if (running) {
      const shared = await running;
      this.matching(shared.record, mapped);
      return shared;
    }
    const mine = this.obtain(mapped, options).then((obtained) => this.issued(obtained));
    this.inflight.set(orderId, mine);
    try {
      return await mine;
    } finally {
      if (this.inflight.get(orderId) === mine) this.inflight.delete(orderId);
    }
  }

  private async issued({ record, statusToken }: Obtained): Promise<IssuedRecord> {
    if (statusToken) return { record, statusToken };
    const fresh = mintStatusToken();
    await this.store.issueStatusToken(record.id, fresh.hash);
    return { record, statusToken: fresh.token };
  }

  private async obtain(mapped: MappedInvoice, options: ResolvedCheckoutOptions): Promise<Obtained> {
    const orderId = mapped.params.payment.id;
    const deadline = Date.now() + options.creationWaitMs;
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
          settlesAt: new Date(this.landsUntil(options) + CLAIM_HEADROOM_MS),
          statusTokenHash: token.hash,
        });
        if (claimed) {
          const created = await this.send(claimed, mapped, deadline, options);
          if (created)
            return { record: created, statusToken: created.id === claimed.id ? token.token : null };
          continue; // closed as "not created" (the next attempt gets its own referrer), or moved unsent
        }
      }
      const open = await this.store.findOpen(orderId);
      free = open === null;
      if (!open) continue;
      this.matching(open, mapped);
      if (open.creationState === 'created') return { record: open, statusToken: null };
      if (open.creationState === 'unknown') {
        // Whoever flips unknown → pending resolves it; the others wait like for any pending creation.
        const taken = await this.store.moveAsRead(open, creationMove(['unknown'], 'pending', {}));
        if (taken) {
          const resolved = await this.outcomes.resolveUnknown(taken, deadline, options);
          if (resolved) return { record: this.matching(resolved, mapped), statusToken: null };
        }
        continue;
      }
      if (Date.now() - open.updatedAt.getTime() > options.staleCreationMs) {
        // The holder died mid-creation: its request may have gone through.
        const since = open.unknownSince ?? new Date();
        await this.store.moveAsRead(open, creationMove(['pending'], 'unknown', { unknownSince: since }));
        continue;
      }
      if (Date.now() > deadline) {
        throw beingCreated(orderId, open.id, 'another request is creating it');
      }
      await sleep(CREATION_POLL_MS);
    }
  }

  /** Settles an `unknown` (or stale `pending`) creation by asking the service; a fresh `pending` one throws. */
  async settle(record: InvoiceRecord): Promise<InvoiceRecord> {
    if (record.creationState === 'created' || record.creationState === 'failed') return record;
    const stale = Date.now() - record.updatedAt.getTime() > this.configured.staleCreationMs;
    if (record.creationState === 'pending' && !stale) {
      throw beingCreated(record.orderId, record.id, 'its creation is in progress');
    }
    // A stale `pending` one is taken only as read (its holder may still write); an `unknown` one by its state.
    const move = creationMove([record.creationState], 'pending', {});
    const taken =
      record.creationState === 'pending'
        ? await this.store.moveAsRead(record, move)
        : (await this.store.transition(record.id, move)) && record;
    if (!taken) return this.store.get(record.id);
    const settled = await this.outcomes.resolveUnknown(taken, Date.now(), this.configured);
    return settled ?? this.store.get(record.id);
  }

  /** Closes an unsettled attempt as "not created" on a person's word; the resolution is kept with `actor`. */
  async markNotCreated(record: InvoiceRecord, actor: string, note: string | null): Promise<InvoiceRecord> {
    const reason = `marked as not created by ${actor}${note ? `: ${note}` : ''}`;
    if (!(await this.store.closeNotCreated(record.id, reason, ['unknown', 'pending'])))
      return this.store.get(record.id);
    await this.store.recordResolution(record, actor, reason);
    this.logger.warn(`order ${record.orderId}: attempt ${record.id} ${reason}`);
    return this.store.get(record.id);
  }

  /**
   * `null` when the attempt was closed as "not created", or moved before its request left (the order is decided
   * again). The record settled is the one stored, so its answer's guarded status write lands.
   */
  private async send(
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
        this.logger.warn(`order ${record.orderId}: creation outcome unknown (${err.reason}); looking it up`);
        // Still `pending`: this caller looks it up, the others wait.
        const unknown = creationMove(['pending'], 'pending', { unknownSince: new Date() });
        const looked = (await this.store.moveAsRead(record, unknown)) ?? { ...record, ...unknown.patch };
        return this.outcomes.resolveUnknown(looked, deadline, options);
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
        creationMove(['pending'], 'unknown', { unknownSince: new Date() }),
      );
      throw err;
    }
    return this.outcomes.settleCreated(record, invoice);
  }

  private landsUntil(options: ResolvedCheckoutOptions): number {
    return Date.now() + this.gateway.createTimeoutMs + options.lateCreationMarginMs;
  }

  private matching(open: InvoiceRecord, mapped: MappedInvoice): InvoiceRecord {
    const [was, now] = [open.amountCents, mapped.totalCents].map(centsToDecimalString);
    const conflict =
      open.method !== mapped.method
        ? `it is a ${open.method} invoice, not ${mapped.method}`
        : open.amountCents !== mapped.totalCents && `it is for ${was}, the order now totals ${now}`;
    if (conflict) throw new OpenInvoiceConflictError(open.orderId, open.id, conflict);
    return open;
  }
}
