import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { InvoiceIdentity } from '../core/invoice-identity';
import { LATE_INVOICE_ADOPTER, LateInvoiceAdopter } from '../core/ports';
import { GatewayClient } from '../gateway/gateway.client';
import { WEBHOOKS_OPTIONS } from './constants';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { purgeFinished } from '../core/queue/leased-rows';
import { message, WebhookInboxService } from './webhook-inbox.service';
import { DeliveryConfirmation } from './delivery-confirmation';
import { InboxBatch } from './inbox-batch';

/** Turns a waited-for entry waits for the pace before its attempt is the answer. */
const PACED_ROUNDS = 3;

/**
 * Applies inbox entries in batches ({@link InboxBatch}) under a lease, so several instances may poll one database;
 * failures are retried with backoff, then dead-lettered with an `Alert`.
 */
@Injectable()
export class WebhookInboxProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookInboxProcessor.name);
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private lastPurge = 0;
  /** The intake reads its pacing (which entry waits, and till when). */
  readonly confirmation: DeliveryConfirmation;
  private readonly batch: InboxBatch;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    statuses: InvoiceStatusService,
    events: EventEmitter2,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    gateway: GatewayClient,
    inbox: WebhookInboxService,
    // Late and duplicate invoices (the checkout provides it; absent, unlinked records are matched by referrer).
    @Optional() @Inject(LATE_INVOICE_ADOPTER) lateInvoices?: LateInvoiceAdopter | null,
  ) {
    const identity = new InvoiceIdentity(gateway, events);
    this.confirmation = new DeliveryConfirmation(gateway, options, inbox);
    const late = lateInvoices ?? null;
    this.batch = new InboxBatch(dataSource, inbox, this.confirmation, statuses, options, identity, late);
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

  /** An entry was stored: a batch takes it soon, with whatever else is due then. */
  kick(_id?: string, _invoiceKey?: string | null): void {
    this.batch.soon();
  }

  arriving(): void {
    this.batch.arriving();
  }

  /**
   * Processes an entry now, as a batch of one, and resolves once that attempt is over; one the pace put off is
   * attempted when its turn comes. For hosts that answer with the outcome ({@link HostDeliveries}).
   */
  async processNow(id: string, invoiceKey: string | null = null): Promise<void> {
    for (let round = 0; ; round++) {
      if (this.stopped) return;
      await this.batch.only(id);
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

  /** Runs batches of every due entry; resolves once they are done. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    if (Date.now() - this.lastPurge >= 3_600_000) {
      this.lastPurge = Date.now();
      void this.purge();
    }
    await this.batch.schedule();
  }

  async drain(): Promise<void> {
    await this.batch.idle();
  }

  /** Deletes finished rows older than `inbox.retentionMs` (they dedupe the service's retries till then). */
  async purge(): Promise<number> {
    const rows = {
      table: this.dataSource.getMetadata(WebhookInboxEntry).tableName,
      finished: "state IN ('processed', 'ignored', 'dead')",
      finishedAt: 'processed_at',
    };
    try {
      return await purgeFinished(this.dataSource, rows, this.options.inbox.retentionMs, () => this.stopped);
    } catch (err) {
      this.logger.warn(`purging old webhook inbox rows failed: ${message(err)}`);
      return 0;
    }
  }
}
