import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import { InvoicePaymentsEvents, messageOf, raiseAlert, emitSafely } from '../core/events';
import { retryDelayMs } from '../core/queue/backoff';
import { Poller } from '../core/queue/poller';
import { CLOCK, type Clock } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import { GatewayRateLimitError, GatewayUnsupportedError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import type { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingOutboxStore } from './tracking-outbox.store';
import type { TrackingFailedEvent, TrackingPostedEvent } from '../domain/shipping.types';
import { SHIPPING_OPTIONS, type ResolvedShippingOptions } from '../options/shipping.options';

/** What one worker round did; `lost`: rows whose claim lapsed while this worker was posting (another owns them). */
export type TrackingRunResult = Record<Outcome | 'claimed', number>;
type Outcome = 'sent' | 'retried' | 'failed' | 'superseded' | 'lost';

/** Gateway error kinds that no retry can fix: the row fails at once. */
const PERMANENT = new Set(['authentication', 'scope', 'validation', 'not_found', 'state_conflict', 'mode']);

/**
 * Posts the outbox's tracking codes to the service: `sent`, retried with backoff, or `failed` after `maxAttempts` or
 * a permanent error. A row claimed again after an attempt is read back before any second post (docs/shipping.md).
 */
@Injectable()
export class TrackingWorker extends Poller<TrackingRunResult> implements OnApplicationBootstrap {
  /** Identifies this worker's claims in `locked_by`. */
  readonly workerId = `${hostname().slice(0, 60)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: TrackingOutboxStore;
  private claims = 0;

  constructor(
    dataSource: DataSource,
    private readonly gateway: GatewayClient,
    private readonly events: EventEmitter2,
    @Inject(SHIPPING_OPTIONS) private readonly options: ResolvedShippingOptions,
    @Inject(CLOCK) clock: Clock,
  ) {
    super('Tracking', new Logger('InvoicePayments:TrackingWorker'), options.pollIntervalMs, clock);
    this.store = new TrackingOutboxStore(dataSource, clock);
  }

  onApplicationBootstrap(): void {
    if (this.options.autoStartWorker) this.start();
  }

  /** Claims up to `batchSize` due rows and handles them; rows not reached when the worker stops are handed back. */
  protected async round(stopped: () => boolean): Promise<TrackingRunResult> {
    const result: TrackingRunResult = { claimed: 0, sent: 0, retried: 0, failed: 0, superseded: 0, lost: 0 };
    const claim = `${this.workerId}#${++this.claims}`;
    const rows = await this.store.claim(claim, this.options.batchSize, this.options.leaseMs);
    result.claimed = rows.length;
    for (let i = 0; i < rows.length; i++) {
      if (stopped()) {
        await this.store.release(rows.slice(i), claim);
        break;
      }
      result[await this.handle(rows[i], claim)]++;
    }
    return result;
  }

  protected override again(result: TrackingRunResult): boolean {
    return result.claimed === this.options.batchSize;
  }

  protected override hourly(stopped: () => boolean): Promise<number> {
    return this.store.purgeSent(this.options.retentionMs, stopped);
  }

  private async handle(row: TrackingOutbox, claim: string): Promise<Outcome> {
    if (await this.store.hasNewerCode(row)) {
      await this.store.writeHeld(row, claim, { status: 'superseded' });
      return 'superseded';
    }
    // The claim may be several posts old: make it last for this post.
    if (!(await this.store.renew(row, claim, this.options.leaseMs))) return 'lost';
    const settled = row.attempts > 1 ? await this.readBack(row, claim) : null;
    if (settled) return settled;
    try {
      await this.gateway.addTrackingCode({
        invoiceId: row.gatewayInvoiceId,
        code: row.code,
        ...(row.carrier !== null ? { carrier: row.carrier } : {}),
        ...(row.url !== null ? { url: row.url } : {}),
      });
    } catch (err) {
      return this.onFailure(row, claim, err);
    }
    return this.markSent(row, claim);
  }

  /** An earlier attempt may have reached the service: the row's outcome if the read-back settles it, else `null`. */
  private async readBack(row: TrackingOutbox, claim: string): Promise<Outcome | null> {
    let seen: string | null;
    try {
      seen = await this.gateway.findTrackingCode(row.gatewayInvoiceId);
    } catch (err) {
      if (!(err instanceof GatewayUnsupportedError)) return this.onFailure(row, claim, err);
      const message =
        `an earlier post may have reached the service, whose invoices do not show a tracking code ` +
        `(wire profile readBack.trackingCode): check the invoice in the service's panel, then record the code again`;
      return this.fail(row, claim, message, 'outcome_unknown');
    }
    if (seen !== row.code) return null;
    this.logger.log(`${what(row)} was received by an earlier attempt (read back): not posted again`);
    return this.markSent(row, claim);
  }

  private async markSent(row: TrackingOutbox, claim: string): Promise<Outcome> {
    const sent = { status: 'sent' as const, sentAt: this.clock.date(), lastError: null, lastErrorKind: null };
    if (!(await this.store.writeHeld(row, claim, sent))) {
      // The worker that took over reads the code back before posting it.
      this.logger.warn(`${what(row)}: this worker's claim lapsed before it recorded the code sent`);
      return 'lost';
    }
    const { orderId, code, invoiceRecordId, carrier, url, id: outboxId, attempts } = row;
    const posted: TrackingPostedEvent = { orderId, code, invoiceRecordId, carrier, url, outboxId, attempts };
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.TrackingPosted, posted);
    return 'sent';
  }

  private async onFailure(row: TrackingOutbox, claim: string, err: unknown): Promise<Outcome> {
    const message = clip(messageOf(err), 1000);
    const kind = isGatewayError(err) ? err.kind : 'unknown';
    if (PERMANENT.has(kind) || row.attempts >= this.options.maxAttempts) {
      return this.fail(row, claim, message, kind);
    }
    const backoff = retryDelayMs(row.attempts, this.options.backoff);
    const retryAfter = err instanceof GatewayRateLimitError ? (err.retryAfterMs ?? 0) : 0;
    const nextAttemptAt = new Date(this.clock.now() + Math.max(backoff, retryAfter));
    if (
      !(await this.store.writeHeld(row, claim, { nextAttemptAt, lastError: message, lastErrorKind: kind }))
    ) {
      return 'lost';
    }
    this.logger.warn(
      `${what(row)}: attempt ${row.attempts} failed (${kind}), next at ${nextAttemptAt.toISOString()}: ${message}`,
    );
    return 'retried';
  }

  /** Fails the row for good: a person must post it (or fix the cause and retry), so it is an alert too. */
  private async fail(row: TrackingOutbox, claim: string, message: string, kind: string): Promise<Outcome> {
    const failed = { status: 'failed' as const, lastError: message, lastErrorKind: kind };
    if (!(await this.store.writeHeld(row, claim, failed))) return 'lost';
    const { orderId, code, invoiceRecordId, id: outboxId, attempts } = row;
    const text = `${what(row)} failed after ${attempts} attempt(s) (${kind}): ${message}`;
    const alert = { kind: 'tracking_failed' as const, orderId, invoiceRecordId, message: text };
    raiseAlert(this.events, this.logger, alert);
    const failure = { orderId, code, error: message, errorKind: kind, invoiceRecordId, outboxId, attempts };
    const event = InvoicePaymentsEvents.TrackingFailed;
    emitSafely(this.events, this.logger, event, failure satisfies TrackingFailedEvent);
    return 'failed';
  }
}

function what(row: TrackingOutbox): string {
  return `Tracking code ${row.code} for order ${row.orderId}`;
}
