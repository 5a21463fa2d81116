import type { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import { emitSafely, type InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { doublingDelayMs } from '../core/queue/backoff';
import type { LeasedRows } from '../core/queue/leased-rows';
import type { Clock } from '../domain/clock';
import { clip } from '../domain/text-bounds';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

/**
 * The writes that end a claimed entry's attempt without applying it: put off to its invoice's turn, retried with the
 * one backoff, waiting for a record, or dead-lettered with an alert. The processor's own part (it alone moves
 * entries); apart so the processor file keeps to the batch.
 */
export class InboxFates {
  /** Dead letters of invoices the service does not know since the last alert about them, and when that was. */
  private unknownSinceAlert = 0;
  private lastUnknownAlert = 0;

  constructor(
    private readonly leased: LeasedRows<WebhookInboxEntry>,
    private readonly options: ResolvedWebhooksOptions,
    private readonly events: EventEmitter2,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** Due again at `at`, its invoice's next turn; not an attempt that failed. */
  async putOff(entries: WebhookInboxEntry[], at: Date): Promise<void> {
    const lastError = `its invoice's lookups are paced (webhooks.lookupWindowMs): looked up at ${at.toISOString()}`;
    await this.leased.finishAll(entries, { waitingFor: 'lookup', nextAttemptAt: at, lastError });
  }

  /** Due again after the inbox's doubling backoff of its attempts. */
  async retryLater(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs);
    const nextAttemptAt = new Date(this.clock.now() + delay);
    await this.leased.finish(entry, { waitingFor: null, lastError: clip(reason, 2000), nextAttemptAt });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  /** Retried with backoff for `unknownInvoiceWindowMs` after it arrived, then dead. */
  async retryWithin(entry: WebhookInboxEntry, problem: string): Promise<void> {
    const waited = this.clock.now() - entry.receivedAt.getTime();
    if (waited < this.options.inbox.unknownInvoiceWindowMs) return this.retryLater(entry, problem);
    await this.deadLetter(entry, `${problem} (for ${waited} ms)`);
  }

  /** The service knows the invoice and no record holds it: later attempts wait for one without asking again. */
  async waitForRecord(entry: WebhookInboxEntry, gatewayId: string): Promise<void> {
    const waited = this.clock.now() - entry.receivedAt.getTime();
    if (waited >= this.options.inbox.unknownInvoiceWindowMs) {
      return this.deadLetter(entry, `no invoice record for invoice ${gatewayId} after ${waited} ms`);
    }
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const nextAttemptAt = new Date(
      this.clock.now() + doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs),
    );
    const lastError = `no invoice record yet for invoice ${gatewayId}`;
    await this.leased.finish(entry, { waitingFor: 'record', lastError, nextAttemptAt });
  }

  /** After a failure to apply (a database error): retried later, or dead-lettered once its attempts are spent. */
  async failed(entry: WebhookInboxEntry, problem: string): Promise<void> {
    if (entry.attempts < this.options.inbox.maxAttempts) return this.retryLater(entry, problem);
    await this.deadLetter(entry, `gave up after ${entry.attempts} attempts: ${problem}`);
  }

  /** Closed with nothing to apply: not this store's invoice (`lastError` says why), or handled by the checkout. */
  async ignore(entries: WebhookInboxEntry[], outcome: string, lastError: string | null): Promise<void> {
    const patch = { state: 'ignored' as const, waitingFor: null, outcome: clip(outcome, 255) };
    await this.leased.finishAll(entries, {
      ...patch,
      lastError: clip(lastError, 2000),
      processedAt: this.clock.date(),
    });
  }

  /** Dead-letters an entry, with an alert. */
  async deadLetter(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.bury(entry, reason);
    this.logger.warn(`webhook inbox entry ${entry.id} dead-lettered: ${reason}`);
    const what = `invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}`;
    this.alert(`webhook delivery ${entry.id} (${what}) dead-lettered: ${reason}`);
  }

  /** Dead-letters a delivery of an invoice the service does not know: one alert a window, not one per delivery. */
  async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.bury(entry, reason);
    const count = ++this.unknownSinceAlert;
    if (this.clock.now() - this.lastUnknownAlert < this.options.inbox.unknownLookupWindowMs) return;
    this.lastUnknownAlert = this.clock.now();
    this.unknownSinceAlert = 0;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    const named = `${count} webhook delivery(ies) named invoices neither this store nor the service knows`;
    this.alert(`${named} (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`);
  }

  private async bury(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const patch = {
      state: 'dead' as const,
      waitingFor: null,
      lastError: clip(reason, 2000),
      processedAt: this.clock.date(),
    };
    await this.leased.finish(entry, patch);
  }

  private alert(message: string): void {
    const alert = {
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: null,
      message,
    } satisfies InvoicePaymentsAlert;
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.Alert, alert);
  }
}
