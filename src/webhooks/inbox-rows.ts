import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { doublingDelayMs } from '../core/queue/backoff';
import { LeasedRows } from '../core/queue/leased-rows';
import type { ResolvedWebhooksOptions } from './types';
import { UnknownInvoices } from './unknown-invoices';
import { WebhookInboxEntry } from './webhook-inbox.entity';

/**
 * How an inbox entry is taken and how it ends: claimed under a lease (the core queue's {@link LeasedRows}), then
 * finished, retried later with the queue's backoff, or dead-lettered with an alert.
 */
export class InboxRows {
  private readonly logger = new Logger('WebhookInboxProcessor');
  private readonly rows: LeasedRows<WebhookInboxEntry>;

  constructor(
    dataSource: DataSource,
    private readonly events: EventEmitter2,
    private readonly options: ResolvedWebhooksOptions,
    readonly unknown: UnknownInvoices,
  ) {
    this.rows = new LeasedRows(
      dataSource,
      WebhookInboxEntry,
      {
        table: 'invoice_payments_webhook_inbox',
        open: { sql: (t) => `${t}state = 'pending'`, where: { state: 'pending' } },
        lockedUntil: 'locked_until',
        attempts: 'attempts',
        nextAttemptAt: 'next_attempt_at',
      },
      () => options.inbox.leaseMs,
    );
  }

  /** Takes an entry (lease), or `null` when it is taken, done, or (with `dueOnly`) not due. */
  claim(id: string, dueOnly: boolean): Promise<WebhookInboxEntry | null> {
    return this.rows.claim(id, dueOnly);
  }

  async retryLater(entry: WebhookInboxEntry, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options.inbox;
    const delay = doublingDelayMs(entry.attempts, retryBaseDelayMs, retryMaxDelayMs);
    const next = new Date(Date.now() + delay);
    await this.finish(entry, { lastError: clip(reason, 2000), nextAttemptAt: next, lockedUntil: null });
    this.logger.debug(`webhook inbox entry ${entry.id}: ${reason}; retry in ${delay} ms`);
  }

  async deadLetter(entry: WebhookInboxEntry, recordId: string | null, reason: string): Promise<void> {
    await this.finish(entry, { state: 'dead', lastError: clip(reason, 2000), processedAt: new Date() });
    this.logger.warn(`webhook inbox entry ${entry.id} dead-lettered: ${reason}`);
    this.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: recordId,
      message: `webhook delivery ${entry.id} (invoice ${entry.gatewayId ?? '?'}, status ${entry.statusCode ?? '?'}) dead-lettered: ${reason}`,
    });
  }

  /** Dead-letters a delivery for an invoice the service does not know; one alert a window, not one per delivery. */
  async deadLetterUnknown(entry: WebhookInboxEntry, reason: string): Promise<void> {
    await this.finish(entry, { state: 'dead', lastError: clip(reason, 2000), processedAt: new Date() });
    const count = this.unknown.countForAlert();
    if (count === 0) return;
    this.logger.warn(
      `${count} webhook deliveries named invoices the service does not know (last: ${reason})`,
    );
    this.alert({
      kind: 'webhook_dead_letter',
      orderId: null,
      invoiceRecordId: null,
      message: `${count} webhook delivery(ies) named invoices neither this store nor the service knows (last: delivery ${entry.id}: ${reason}); a valid webhook token may have leaked`,
    });
  }

  alert(alert: InvoicePaymentsAlert): void {
    try {
      this.events.emit(InvoicePaymentsEvents.Alert, alert);
    } catch (err) {
      this.logger.error(`a listener of ${InvoicePaymentsEvents.Alert} threw: ${message(err)}`);
    }
  }

  /** Updates an entry this processor claimed; releases the claim. */
  finish(entry: WebhookInboxEntry, patch: Partial<WebhookInboxEntry>): Promise<void> {
    return this.rows.finish(entry, patch);
  }
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function clip(value: string, max: number): string {
  return value.slice(0, max);
}
