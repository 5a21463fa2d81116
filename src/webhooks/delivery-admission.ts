import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { InvoicePaymentsEvents } from '../core/events';
import type { PaymentStatusChange } from '../core/ports';
import { CallCeiling } from '../core/queue/call-ceiling';
import { CLOCK, type Clock } from '../domain/clock';
import { STATUS_STAGES } from '../domain/status-table';
import { decideTransition } from '../domain/status-transitions';
import type { NamedInvoice } from '../gateway/webhook.reader';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { InvoiceRecord } from '../persistence/invoice.entity';
import type { IgnoredDelivery, Refusal } from './webhook-inbox.types';

/** How long an invoice is remembered as open here. */
const REMEMBER_MS = 60_000;

/** What the route does with a delivery's invoice: takes it (`null`), acknowledges and drops it, or refuses it. */
export type Admission = null | { ignored: IgnoredDelivery } | Refusal;

/** Whether a report could still change a record at `code` (a refund or late money reaches a paid or canceled one). */
export function openToReports(code: number | null): boolean {
  return STATUS_STAGES.some((to) => decideTransition(code, to).apply);
}

/**
 * Decides, from one indexed read and without calling the service, whether a delivery's invoice is worth a lookup
 * (docs/webhook-security.md, "A delivery is a trigger, cheaply"). Invoices found open by number are remembered for a
 * minute (no read); one this process sees close (a change to refunded) is forgotten at once.
 */
@Injectable()
export class DeliveryAdmission implements OnModuleInit, OnModuleDestroy {
  private readonly open = new LRUCache<string, number>({ max: 10_000 });
  private readonly byReferrer: CallCeiling;
  private readonly closed = (change: PaymentStatusChange): void => {
    if (change.gatewayId !== null && !openToReports(change.current.code)) this.open.delete(change.gatewayId);
  };

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(WEBHOOKS_OPTIONS) options: ResolvedWebhooksOptions,
    private readonly events: EventEmitter2,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.byReferrer = new CallCeiling(unknownLookupsPerWindow, () => clock.now(), unknownLookupWindowMs);
  }

  onModuleInit(): void {
    this.events.on(InvoicePaymentsEvents.StatusChanged, this.closed);
  }

  onModuleDestroy(): void {
    this.events.off(InvoicePaymentsEvents.StatusChanged, this.closed);
  }

  /**
   * Taken: an invoice whose record holds it by number and is open to reports; or one no record holds by number under
   * a referrer a record holds (the delivery won the race against the checkout's commit of the number, or a second
   * invoice under one of our referrers, which the checkout adopts, cancels or raises), within
   * `inbox.unknownLookupsPerWindow` a window since a sender can make up numbers (beyond, 503). Acknowledged and
   * dropped: an invoice whose record is closed (refunded: no report changes it) or that no record names at all (the
   * checkout writes its record, referrer included, before it asks the service to create the invoice).
   */
  async admit(invoice: NamedInvoice): Promise<Admission> {
    const t = this.clock.now();
    if ((this.open.get(invoice.id) ?? 0) > t) return null;
    const where = [{ gatewayId: invoice.id }, ...(invoice.referrer ? [{ referrer: invoice.referrer }] : [])];
    const records = await this.dataSource
      .getRepository(InvoiceRecord)
      .find({ where, select: { id: true, gatewayId: true, statusCode: true } });
    const own = records.find((r) => r.gatewayId === invoice.id);
    if (own && openToReports(own.statusCode)) {
      this.open.set(invoice.id, t + REMEMBER_MS);
      return null;
    }
    if (own || records.length === 0) return { ignored: notOpen(invoice) };
    if (this.byReferrer.take()) return null;
    const message = `too many deliveries naming invoices by referrer only; invoice ${invoice.id} is taken later`;
    const retryAfterSeconds = Math.max(1, Math.ceil(this.byReferrer.msUntilNextWindow() / 1000));
    return { ok: false, status: 503, message, retryAfterSeconds };
  }
}

function notOpen(invoice: NamedInvoice): IgnoredDelivery {
  const named = `invoice ${invoice.id}${invoice.referrer ? ` (referrer ${invoice.referrer})` : ''}`;
  const message = `${named} is no invoice of this store open to changes: acknowledged, nothing stored`;
  return { reason: 'no_open_invoice', message };
}
