import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull } from 'typeorm';
import { InvoiceIdentity } from '../core/invoice-identity';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { LATE_INVOICE_ADOPTER, LateInvoiceAdopter } from '../core/ports';
import { decideTransition } from '../core/status-table';
import { GatewayClient } from '../gateway/gateway.client';
import { isLastPage } from '../gateway/response.readers';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { WEBHOOKS_OPTIONS } from './constants';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';

/** What one sweep did. */
export interface SweepResult {
  /** Pages read from the service. */
  pages: number;
  /** Invoices listed. */
  seen: number;
  /** Listed invoices that belong to a local record. */
  matched: number;
  /** Status changes the sweep applied (webhooks had missed them). */
  applied: number;
  /** Set when the sweep stopped early; the next one starts over. */
  error: string | null;
}

/**
 * The reconciliation sweep: pages through the service's invoice list (A7, at most 100 a page, invoices created in
 * the last `lookbackDays`) and reports every status a local record has not caught up with to
 * {@link InvoiceStatusService}, the same path webhooks take, so a missed or dropped webhook is recovered. Reports
 * the transition table would refuse (a status behind the record's) are skipped, so repeated sweeps add nothing to
 * the history. An invoice is applied to a record only when it is that record's by identity ({@link InvoiceIdentity}):
 * another store's invoice with one of our referrers is left alone and alerted. Runs every `sweep.intervalMs` when set (off by default); `sweep()` runs it on demand.
 */
@Injectable()
export class ReconciliationService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ReconciliationService.name);
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<SweepResult> | null = null;
  private readonly identity: InvoiceIdentity;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    private readonly gateway: GatewayClient,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    events: EventEmitter2,
    @Optional() @Inject(LATE_INVOICE_ADOPTER) private readonly lateInvoices?: LateInvoiceAdopter | null,
  ) {
    this.identity = new InvoiceIdentity(gateway, events);
  }

  onModuleInit(): void {
    const every = this.options.sweep.intervalMs;
    if (every > 0) {
      this.timer = setInterval(() => void this.sweep(), every);
      this.timer.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current?.catch(() => undefined);
  }

  /** Runs one sweep; a call while one runs joins it. Never throws: failures are in `error` and the log. */
  sweep(): Promise<SweepResult> {
    this.current ??= this.run().finally(() => (this.current = null));
    return this.current;
  }

  private async run(): Promise<SweepResult> {
    const result: SweepResult = { pages: 0, seen: 0, matched: 0, applied: 0, error: null };
    const createdFrom = serviceDay(Date.now() - this.options.sweep.lookbackDays * 86_400_000);
    try {
      for (let page = 1; ; page++) {
        const listed = await this.gateway.listInvoices({
          page,
          limit: this.options.sweep.pageSize,
          createdFrom,
        });
        result.pages++;
        result.seen += listed.items.length;
        await this.reconcile(listed.items, result);
        if (isLastPage(listed)) break;
      }
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
      this.logger.warn(`reconciliation sweep stopped: ${result.error}`);
    }
    if (result.applied > 0)
      this.logger.log(`reconciliation sweep applied ${result.applied} missed status change(s)`);
    return result;
  }

  private async reconcile(invoices: Invoice[], result: SweepResult): Promise<void> {
    if (invoices.length === 0) return;
    const repo = this.dataSource.getRepository(InvoiceRecord);
    const byGatewayId = new Map(
      (await repo.findBy({ gatewayId: In(invoices.map((i) => i.id)) })).map((r) => [r.gatewayId, r]),
    );
    const referrers = invoices
      .filter((i) => !byGatewayId.has(i.id) && i.referrer)
      .map((i) => i.referrer as string);
    const matched = new Map<Invoice, InvoiceRecord>();
    for (const invoice of invoices) {
      const record = byGatewayId.get(invoice.id);
      if (record && !(await this.identity.whyNotOurs(invoice, record, 'number')))
        matched.set(invoice, record);
    }
    if (this.lateInvoices) {
      // Invoices no record holds by number go to the checkout, which links them to their attempt by referrer
      // (late invoices of earlier attempts included), applies their status and cancels or alerts duplicates.
      const ours = referrers.length ? await repo.findBy({ referrer: In(referrers) }) : [];
      const known = new Set(ours.map((r) => r.referrer));
      for (const invoice of invoices) {
        if (byGatewayId.has(invoice.id) || !invoice.referrer || !known.has(invoice.referrer)) continue;
        if ((await this.lateInvoices.adopt(invoice, 'sweep')).record) result.matched++;
      }
    } else if (referrers.length) {
      const byReferrer = new Map(
        (await repo.findBy({ referrer: In(referrers), gatewayId: IsNull() })).map((r) => [r.referrer, r]),
      );
      for (const invoice of invoices) {
        const record = byGatewayId.has(invoice.id) ? undefined : byReferrer.get(invoice.referrer ?? '');
        if (record && !(await this.identity.whyNotOurs(invoice, record, 'referrer')))
          matched.set(invoice, record);
      }
    }
    // Anything else is not ours: another system's invoice on the same account (alerted when it has our referrer).
    for (const [invoice, record] of matched) {
      result.matched++;
      if (!decideTransition(record.statusCode, invoice.status.code).apply) continue;
      const { result: applied } = await this.statuses.apply({
        recordId: record.id,
        code: invoice.status.code,
        text: invoice.status.text,
        source: 'sweep',
        invoice,
      });
      if (applied.applied) result.applied++;
    }
  }
}

/** `YYYY-MM-DD` of an instant in the service's time zone (A2). */
function serviceDay(epochMs: number): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(epochMs));
}
