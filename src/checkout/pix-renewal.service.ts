import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { addDays, firstDueDay } from '../domain/text-and-days';
import { CLOCK, type Clock, secondsToWait } from '../domain/clock';
import { GatewayOutcomeUnknownError, GatewayStateConflictError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoiceCreationService } from './invoice-creation.service';
import { InvoicePaymentProvider } from './invoice-payment.provider';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import { RenewalNotOfferedError, RenewalOutcomeUnknownError } from './shopper.errors';
import { shopperViewOf } from './shopper-view';

/** A renewal whose answer was lost: the due day the record had, and until when the request could still land. */
interface UnknownRenewal {
  dueDate: string | null;
  landsUntil: number;
}

/**
 * A new PIX code for the shopper: the invoice's due date moved (the service's due-date change, §4.3) to the day the
 * checkout would give a new invoice (`dueDays` from today, at least tomorrow; today never one the service has left). A lost answer stays unknown: nothing
 * is sent again for that record until the record shows the new day or, once the request can no longer land, the
 * service is asked what it did. Per process: two instances of a store could each send once, which moves the due date
 * to the same day.
 */
@Injectable()
export class PixRenewalService {
  private readonly unknown = new LRUCache<string, UnknownRenewal>({ max: 10_000 });
  private readonly inflight = new Map<string, Promise<InvoiceRecord>>();

  constructor(
    private readonly provider: InvoicePaymentProvider,
    private readonly creation: InvoiceCreationService,
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The record after its renewal; concurrent renewals of one record in this process share one request. */
  renew(record: InvoiceRecord): Promise<InvoiceRecord> {
    const running = this.inflight.get(record.id);
    if (running) return running;
    const mine = this.once(record).finally(() => this.inflight.delete(record.id));
    this.inflight.set(record.id, mine);
    return mine;
  }

  private async once(read: InvoiceRecord): Promise<InvoiceRecord> {
    const { record, renewed } = await this.confirmLostRenewal(read);
    if (renewed) return record;
    const options = await this.creation.current();
    const now = this.clock.date();
    const serviceZone = (await this.gateway.wireProfile()).timeZone;
    const view = shopperViewOf(record, { serviceZone, now });
    if (!view.renewable) throw new RenewalNotOfferedError(`it is a ${view.method} payment, ${view.state}`);
    const today = firstDueDay(options.timeZone, serviceZone, now);
    const dueDate = addDays(today, Math.max(1, options.dueDays));
    try {
      await this.provider.changeDueDate({ data: { invoiceRecordId: record.id }, dueDate });
    } catch (err) {
      if (err instanceof GatewayStateConflictError) throw await this.refused(record, serviceZone);
      if (!(err instanceof GatewayOutcomeUnknownError)) throw err;
      const landsUntil = now.getTime() + this.gateway.writeTimeoutMs + options.lateCreationMarginMs;
      this.unknown.set(record.id, { dueDate: record.dueDate, landsUntil });
      throw new RenewalOutcomeUnknownError(secondsToWait(landsUntil - this.clock.now()));
    }
    return this.store.get(record.id);
  }

  /**
   * The service refused the new day: the invoice moved since the view was read (paid or canceled meanwhile). What
   * the service holds is applied, so the answer and the shopper's next view say what the payment is now.
   */
  private async refused(read: InvoiceRecord, serviceZone: string): Promise<RenewalNotOfferedError> {
    const asked = this.provider.retrievePayment({ data: { invoiceRecordId: read.id } });
    // Not read back: the refusal still stands, the reconciliation brings the new status.
    const record = await asked.then(() => this.store.get(read.id)).catch(() => null);
    if (!record) return new RenewalNotOfferedError('the payment changed meanwhile');
    const view = shopperViewOf(record, { serviceZone, now: this.clock.date() });
    return new RenewalNotOfferedError(`it is a ${view.method} payment, ${view.state}`);
  }

  /**
   * The record as it stands, `renewed` when a renewal whose answer was lost turned out to have moved the due date.
   * Throws while the lost request could still land.
   */
  private async confirmLostRenewal(
    read: InvoiceRecord,
  ): Promise<{ record: InvoiceRecord; renewed: boolean }> {
    const pending = this.unknown.get(read.id);
    if (!pending) return { record: read, renewed: false };
    if (read.dueDate !== pending.dueDate) {
      this.unknown.delete(read.id); // a webhook or the reconciliation brought the new day: it landed
      return { record: read, renewed: true };
    }
    if (this.clock.now() < pending.landsUntil) {
      throw new RenewalOutcomeUnknownError(secondsToWait(pending.landsUntil - this.clock.now()));
    }
    // It can no longer land: what the service holds now is what it did.
    await this.provider.retrievePayment({ data: { invoiceRecordId: read.id } });
    this.unknown.delete(read.id);
    const record = await this.store.get(read.id);
    return { record, renewed: record.dueDate !== pending.dueDate };
  }
}
