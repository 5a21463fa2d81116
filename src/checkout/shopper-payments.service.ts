import { Inject, Injectable } from '@nestjs/common';
import { RateWindows } from '../core/rate-windows';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { CHECKOUT_OPTIONS } from './invoice-creation.service';
import { InvoiceRecordStore } from './invoice-record.store';
import { PixRenewalService } from './pix-renewal.service';
import {
  ShopperPaymentNotFoundError,
  ShopperRateLimitedError,
  StatusTokenInvalidError,
} from './shopper.errors';
import { shopperViewOf, type ShopperPaymentView } from './shopper-view';
import { statusTokenHash, statusTokenProblem } from './status-token';

/** Reads per token: a component polling every second stays well inside it. */
export const SHOPPER_READS = { maxHits: 120, windowMs: 60_000, maxKeys: 50_000 };
/** Renewals per token: each one is a write at the service. */
export const SHOPPER_RENEWALS = { maxHits: 5, windowMs: 10 * 60_000, maxKeys: 10_000 };

/**
 * The shopper's payment by its status token (Nest hosts): the view from the store's own record, and a new PIX code.
 * Every answer that is not the token's payment is the same 404.
 */
@Injectable()
export class ShopperPaymentsService {
  private readonly reads = new RateWindows(SHOPPER_READS);
  private readonly renewals = new RateWindows(SHOPPER_RENEWALS);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly renewal: PixRenewalService,
    @Inject(CHECKOUT_OPTIONS) private readonly options: ResolvedCheckoutOptions,
  ) {}

  async view(token: unknown): Promise<ShopperPaymentView> {
    return this.viewOf(await this.find(token, this.reads));
  }

  /** A new PIX code for an expired (or expiring) PIX: 409 when none is offered, 503 while a lost one is unknown. */
  async renew(token: unknown): Promise<ShopperPaymentView> {
    const record = await this.find(token, this.renewals);
    return this.viewOf(await this.renewal.renew(record));
  }

  /** Format first, then the rate (by the hash: the token is kept nowhere), then the one indexed lookup. */
  private async find(token: unknown, windows: RateWindows): Promise<InvoiceRecord> {
    const problem = statusTokenProblem(token);
    if (problem) throw new StatusTokenInvalidError(problem);
    const hash = statusTokenHash(token as string);
    const hit = windows.hit(hash);
    if (hit.limited) throw new ShopperRateLimitedError(hit.retryAfterSeconds);
    const record = await this.store.findByStatusToken(hash);
    if (!record) throw new ShopperPaymentNotFoundError();
    return record;
  }

  private viewOf(record: InvoiceRecord): ShopperPaymentView {
    return shopperViewOf(record, { timeZone: this.options.timeZone, now: new Date() });
  }
}
