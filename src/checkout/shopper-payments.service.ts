import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../domain/clock';
import { GatewayClient } from '../gateway/gateway.client';
import { RateWindows } from '../core/rate-windows';
import { fillUrlTemplate } from '../options/checkout.options';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoiceCreationService } from './invoice-creation.service';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import { PixRenewalService } from './pix-renewal.service';
import {
  ShopperPaymentNotFoundError,
  ShopperRateLimitedError,
  StatusTokenInvalidError,
} from './shopper.errors';
import { shopperViewOf, type ShopperPaymentView } from './shopper-view';
import { statusTokenHash, statusTokenProblem } from './status-token';

/** Reads per caller key: a component polling every second stays well inside it. */
export const SHOPPER_READS = { maxHits: 120, windowMs: 60_000, maxKeys: 50_000 };
/** Renewals per caller key: each one is a write at the service. */
export const SHOPPER_RENEWALS = { maxHits: 5, windowMs: 10 * 60_000, maxKeys: 10_000 };

/** Finds the caller's record by the host's own rule of whose it is; `null` for anything not the caller's. */
export type ShopperRecordFinder = () => Promise<InvoiceRecord | null>;

/** What a host adds to the view: the order's "what now" page (default: `checkout.orderUrlTemplate` filled in). */
export interface ShopperViewExtras {
  orderUrl?: string | null;
}

/**
 * The shopper's payment for every host's status route: rate per caller key (a token's hash, a session, a cart),
 * then the host's lookup, then the view from the store's own record, or a new PIX code. Anything not the caller's
 * is the one {@link ShopperPaymentNotFoundError}.
 */
@Injectable()
export class ShopperPaymentsService {
  private readonly reads: RateWindows;
  private readonly renewals: RateWindows;

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly renewal: PixRenewalService,
    private readonly creation: InvoiceCreationService,
    private readonly gateway: GatewayClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.reads = new RateWindows(SHOPPER_READS, () => clock.now());
    this.renewals = new RateWindows(SHOPPER_RENEWALS, () => clock.now());
  }

  /** The view of the record `find` answers; `key` names the caller for the rate (never a secret in clear). */
  async read(
    key: string,
    find: ShopperRecordFinder,
    extras: ShopperViewExtras = {},
  ): Promise<ShopperPaymentView> {
    return this.viewOf(await this.found(key, this.reads, find), extras);
  }

  /** A new PIX code for an expired (or expiring) PIX: 409 when none is offered, 503 while a lost one is unknown. */
  async renew(
    key: string,
    find: ShopperRecordFinder,
    extras: ShopperViewExtras = {},
  ): Promise<ShopperPaymentView> {
    const record = await this.found(key, this.renewals, find);
    return this.viewOf(await this.renewal.renew(record), extras);
  }

  /** The payment of a status token (Nest hosts): its format checked first, the rate by its hash. */
  readByToken(token: unknown): Promise<ShopperPaymentView> {
    const hash = this.tokenHash(token);
    return this.read(`token:${hash}`, () => this.store.findByStatusToken(hash));
  }

  renewByToken(token: unknown): Promise<ShopperPaymentView> {
    const hash = this.tokenHash(token);
    return this.renew(`token:${hash}`, () => this.store.findByStatusToken(hash));
  }

  /** The order's latest attempt: what its shopper is paying now. */
  latestOf(orderId: string): Promise<InvoiceRecord | null> {
    return this.store.rows.findOne({ where: { orderId }, order: { attempt: 'DESC' } });
  }

  private tokenHash(token: unknown): string {
    const problem = statusTokenProblem(token);
    if (problem) throw new StatusTokenInvalidError(problem);
    return statusTokenHash(token as string);
  }

  private async found(key: string, windows: RateWindows, find: ShopperRecordFinder): Promise<InvoiceRecord> {
    const hit = windows.hit(key);
    if (hit.limited) throw new ShopperRateLimitedError(hit.retryAfterSeconds);
    const record = await find();
    if (!record) throw new ShopperPaymentNotFoundError();
    return record;
  }

  /** The service's day (the wire profile in force) and the order URL template in force (options, then settings). */
  private async viewOf(record: InvoiceRecord, extras: ShopperViewExtras): Promise<ShopperPaymentView> {
    const options = await this.creation.current();
    const template = options.orderUrlTemplate;
    let orderUrl = extras.orderUrl ?? null;
    if (extras.orderUrl === undefined && template) orderUrl = await this.orderUrlOf(record, template);
    const serviceZone = (await this.gateway.wireProfile()).timeZone;
    return shopperViewOf(record, { serviceZone, now: this.clock.date(), orderUrl });
  }

  /** The template filled as the invoice's `payment.order_url` was: the reference read back from the referrer. */
  private async orderUrlOf(record: InvoiceRecord, template: string): Promise<string> {
    const prefix = `${await this.creation.referrerNamespace()}:`;
    const suffix = `-${record.attempt}`;
    let reference = record.referrer.startsWith(prefix)
      ? record.referrer.slice(prefix.length)
      : record.referrer;
    if (reference.endsWith(suffix)) reference = reference.slice(0, -suffix.length);
    const values = { order_id: record.orderId, display_id: record.displayId ?? '', reference };
    return fillUrlTemplate(template, values);
  }
}
