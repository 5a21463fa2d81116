import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { InvoiceIdentity } from '../core/invoice-identity';
import { recordOfInvoice } from '../core/record-of-invoice';
import { Adoption, LATE_INVOICE_ADOPTER, LateInvoiceAdopter } from '../core/late-invoice.port';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { WEBHOOKS_OPTIONS } from './constants';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import type { ResolvedWebhooksOptions } from './types';
import { purgeFinishedEntries } from './inbox-retention';
import { UnknownInvoices } from './unknown-invoices';
import { clip, InboxRows, message, reportOf } from './inbox-rows';
import { DeliveryConfirmation, NO_RECORD_YET } from './delivery-confirmation';
import { InboxBatch } from './inbox-batch';

/** Turns a waited-for entry waits for the pace before its attempt is the answer. */
const PACED_ROUNDS = 3;

/**
 * Applies inbox entries through {@link InvoiceStatusService}, retrying until they stick.
 *
 * An entry is claimed with a conditional update (`locked_until`, a lease), so several instances may poll one
 * database and a crashed processor's claim lapses. Failures are retried with exponential backoff: a delivery for an
 * invoice not known yet (the webhook won the race against the checkout's commit) for `unknownInvoiceWindowMs`,
 * anything else (a database error) up to `maxAttempts`; then the entry is dead-lettered with an `Alert` event.
 * Applying twice is harmless: the transition table records a repeated status as unchanged.
 */
@Injectable()
export class WebhookInboxProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookInboxProcessor.name);
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private lastPurge = 0;
  private readonly rows: InboxRows;
  /** The confirmation of deliveries with the service; the intake reads its pacing (which entry waits, and till when). */
  readonly confirmation: DeliveryConfirmation;
  private readonly batch: InboxBatch;
  private readonly identity: InvoiceIdentity;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    private readonly events: EventEmitter2,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly gateway: GatewayClient,
    // Late and duplicate invoices (the checkout provides it; absent, the referrer match below applies).
    @Optional() @Inject(LATE_INVOICE_ADOPTER) private readonly lateInvoices?: LateInvoiceAdopter | null,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    const unknown = new UnknownInvoices(unknownLookupsPerWindow, unknownLookupWindowMs, 3_600_000);
    this.rows = new InboxRows(dataSource, events, options, unknown);
    this.confirmation = new DeliveryConfirmation(dataSource, gateway, options, this.rows);
    this.identity = new InvoiceIdentity(gateway, events);
    const one = (entry: WebhookInboxEntry) =>
      this.processClaimed(entry).catch((err: unknown) =>
        this.logger.error(`webhook inbox entry ${entry.id}: ${message(err)}`),
      );
    this.batch = new InboxBatch(
      dataSource,
      this.rows,
      this.confirmation,
      statuses,
      options,
      this.identity,
      one,
    );
  }

  onModuleInit(): void {
    const every = this.options.inbox.pollIntervalMs;
    if (every > 0) {
      // A burst being taken in already has its batch coming (the quiet period): the periodic poll leaves it be.
      this.timer = setInterval(() => void (this.batch.waiting ? undefined : this.poll()), every);
      this.timer.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.batch.stop();
    if (this.timer) clearInterval(this.timer);
    await this.drain();
  }

  /**
   * An entry was stored: a batch takes it soon, with whatever else is due then (one lookup per invoice). The entry
   * and its invoice are not needed: the batch claims what is due.
   */
  kick(_id?: string, _invoiceKey?: string | null): void {
    this.batch.soon();
  }

  /** A delivery is coming in, not stored yet: the batches' quiet period counts from arrivals. */
  arriving(): void {
    this.batch.arriving();
  }

  /**
   * Processes an entry now, as a batch of one, and resolves once that attempt is over (applied, retrying later or
   * dead), its own or that of the batch that claimed the entry first; an entry whose invoice's lookup the pace put
   * off is attempted when its turn comes. For hosts that must know the outcome before they answer
   * ({@link HostDeliveries}); the module's own route only {@link kick}s.
   */
  async processNow(id: string, invoiceKey: string | null = null): Promise<void> {
    for (let round = 0; ; round++) {
      if (this.stopped) return;
      await this.batch.only(id);
      // Its invoice's lookup put off by the pace (at most `lookupWindowMs`): its turn is waited for, not a failure.
      const turn = invoiceKey === null ? null : await this.pacedTurn(id, invoiceKey);
      if (turn === null || round >= PACED_ROUNDS) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, turn - Date.now())));
    }
  }

  /** When the entry, still pending, is due because the pace put its invoice's lookup off; else `null`. */
  private async pacedTurn(id: string, gatewayId: string): Promise<number | null> {
    const paced = this.confirmation.paced;
    if (paced.deferredUntil(gatewayId) === null && paced.waitingEntry(gatewayId) !== id) return null;
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id });
    const due = entry?.state === 'pending' ? entry.nextAttemptAt?.getTime() : undefined;
    if (due === undefined || due - Date.now() > this.options.lookupWindowMs) return null;
    return due;
  }

  /** Runs batches of every due entry (pending, due, unclaimed or lease lapsed); resolves once they are done. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    this.purgeHourly(new Date());
    await this.batch.schedule();
  }

  private purgeHourly(now: Date): void {
    if (now.getTime() - this.lastPurge < 3_600_000) return;
    this.lastPurge = now.getTime();
    void this.purge();
  }

  /** Resolves once no batch runs or waits (retries waiting on their time are not awaited). */
  async drain(): Promise<void> {
    await this.batch.idle();
  }

  /**
   * One claimed entry whose invoice has no record here yet (see {@link InboxBatch} for those that have one): the
   * budget for unknown invoices, the service's answer, the referrer match and late invoices. The stored body only
   * named the invoice (its number was read at receipt): what is applied is what the service says now.
   */
  private async processClaimed(entry: WebhookInboxEntry): Promise<void> {
    const named = entry.gatewayId;
    if (named === null) return this.rows.deadLetter(entry, null, 'the delivery names no invoice number');
    const local = await this.confirmation.admit(entry, named);
    if (local === null) return;
    // Answered by a lookup applied after it arrived: the confirmation remembers the record it was applied to.
    const answeredBy = local ? this.confirmation.answeredRecord(named, entry.receivedAt) : null;
    if (answeredBy !== null) return this.rows.closeAnswered(entry, answeredBy);
    const confirmation = await this.confirmation.confirm(entry, named, local);
    if (!confirmation) return;
    const invoice = confirmation.invoice;
    try {
      const { record, foreign } = await this.findRecord(invoice);
      if (foreign) return this.rows.leftAlone(entry, foreign);
      if (!record) {
        const waited = Date.now() - entry.receivedAt.getTime();
        if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
          return this.rows.deadLetter(
            entry,
            null,
            `no invoice record for invoice ${invoice.id} after ${waited} ms`,
          );
        }
        // Later deliveries of this invoice wait for a record too, without asking the service again (the
        // confirmation remembered that when the service answered).
        return this.rows.retryLater(entry, `${NO_RECORD_YET} for invoice ${invoice.id}`);
      }
      // A record appeared since the admission (found by the service's referrer): nothing waits for one now.
      if (!local) this.rows.unknown.forget(named);
      await this.apply(entry, invoice, record, 'confirmed with the service');
      // Deliveries of this invoice that arrived before the lookup are answered by it: one lookup serves them all.
      return this.confirmation.applied(invoice.id, confirmation.startedAt, record.id, invoice);
    } catch (err) {
      return this.rows.failed(entry, err);
    }
  }

  /** Deletes finished inbox rows older than `inbox.retentionMs` (see {@link purgeFinishedEntries}). */
  async purge(): Promise<number> {
    try {
      return await purgeFinishedEntries(this.dataSource, this.options.inbox.retentionMs, () => this.stopped);
    } catch (err) {
      this.logger.warn(`purging old webhook inbox rows failed: ${message(err)}`);
      return 0;
    }
  }

  private async apply(
    entry: WebhookInboxEntry,
    invoice: Invoice,
    record: InvoiceRecord,
    how: string,
  ): Promise<void> {
    const result = await this.statuses.applyReport(reportOf(record.id, invoice));
    await this.rows.finish(entry, {
      state: 'processed',
      outcome: clip(`${result.applied ? 'applied' : (result.reason ?? 'not applied')} (${how})`, 255),
      invoiceRecordId: record.id,
      lastError: null,
      processedAt: new Date(),
    });
  }

  /**
   * The record of the service's invoice ({@link recordOfInvoice}); an earlier attempt's late invoice is linked, and
   * duplicates canceled or alerted, by the checkout's adopter when there is one.
   */
  private findRecord(invoice: Invoice): Promise<Adoption> {
    const adopt = this.lateInvoices
      ? (late: Invoice) => (this.lateInvoices as LateInvoiceAdopter).adopt(late, 'webhook')
      : undefined;
    return recordOfInvoice(this.dataSource.getRepository(InvoiceRecord), this.identity, invoice, adopt);
  }
}
