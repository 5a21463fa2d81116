import { randomUUID } from 'node:crypto';
import { emitSafely, KEEP_ONE_PAYABLE, messageOf as message } from '../core/events';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull, LessThanOrEqual } from 'typeorm';
import { CREATION_RESOLVER, CreationResolver, LATE_INVOICE_ADOPTER, LateInvoiceAdopter } from '../core/ports';
import { InvoiceIdentity, recordOfInvoice } from '../core/invoice-identity';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { acquireLease, releaseLease } from '../persistence/named-lease';
import { CallCeiling, Poller } from '../core/queue/poller';
import { statusIs } from '../domain/status-table';
import { isWatched } from '../core/reconciliation-watch';
import { decideTransition } from '../core/status-report';
import { runReturning } from '../persistence/dialect';
import { GatewayClient } from '../gateway/gateway.client';
import { isLastPage } from '../gateway/gateway.transport';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord, NEVER } from '../persistence/invoice.entity';
import { DAY } from '../domain/option-fields';
import { todayIn } from '../domain/text-and-days';
import { CLOCK, type Clock } from '../domain/clock';
import {
  nextCheckAt,
  RECONCILIATION_OPTIONS,
  type ResolvedOpenReconciliationOptions,
  watchStart,
} from '../options/reconciliation.options';
import { countRound } from '../core/otel';

/** Name of the reconciliation's lease (table `invoice_payments_lease`). */
const RECONCILIATION_LEASE = 'open-invoice-reconciliation';

/** One round: `leader` when this instance held the lease (else nothing was done); `closed`: found final, unscheduled. */
export type ReconciliationRound = Record<'checked' | 'applied' | 'closed' | 'errors', number> & {
  leader: boolean;
};
/** One sweep: `matched` listed invoices a record holds; `error` set when it stopped early (the next starts over). */
export type SweepResult = Record<'pages' | 'seen' | 'matched' | 'applied', number> & { error: string | null };

/** After a failed lookup, look again no later than this (the ceiling still bounds the calls). */
const RETRY_AFTER_ERROR_MS = 300_000;
/** The sweep lists invoices created within this many days (A7 `created_from`), 100 a page (the most, §4.1). */
const SWEEP_DAYS = 30;
const SWEEP_PAGE_SIZE = 100;

/**
 * The reconciliation (also exported as `ReconciliationService`): every open record is looked up at the service when
 * its `next_check_at` is due, at most `maxCallsPerMinute` a minute, by one instance at a time (a lease): the cost
 * follows the open invoices, not the account. {@link sweep} audits the whole account on demand.
 */
@Injectable()
export class OpenInvoicesReconciler extends Poller<ReconciliationRound> implements OnModuleInit {
  private readonly holder = randomUUID();
  private readonly ceiling: CallCeiling;
  private starting: Promise<void> = Promise.resolve();
  private sweeping: Promise<SweepResult> | null = null;
  private destroyed = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statuses: InvoiceStatusService,
    private readonly gateway: GatewayClient,
    @Inject(RECONCILIATION_OPTIONS) private readonly options: ResolvedOpenReconciliationOptions,
    private readonly identity: InvoiceIdentity,
    private readonly events: EventEmitter2,
    @Inject(CLOCK) clock: Clock,
    @Inject(CREATION_RESOLVER) private readonly creations: CreationResolver,
    @Inject(LATE_INVOICE_ADOPTER) private readonly lateInvoices: LateInvoiceAdopter,
  ) {
    super('reconciliation', new Logger(OpenInvoicesReconciler.name), options.intervalMs, clock);
    this.ceiling = new CallCeiling(options.maxCallsPerMinute, () => clock.now());
  }

  onModuleInit(): void {
    if (this.options.intervalMs <= 0) return;
    // Webhooks may have been missed while the store was down: recent open invoices are due before the first round.
    this.starting = this.catchUp().then(() => {
      if (!this.destroyed) this.start();
    });
  }

  override async onModuleDestroy(): Promise<void> {
    this.destroyed = true;
    await this.starting;
    await super.onModuleDestroy();
    await this.sweeping;
    await releaseLease(this.dataSource, RECONCILIATION_LEASE, this.holder).catch(() => undefined);
  }

  /**
   * Makes the invoices created (or put back on the schedule) within `catchUpOnStartMs` due now (webhooks missed while
   * down); returns how many.
   */
  async catchUp(): Promise<number> {
    if (this.options.catchUpOnStartMs <= 0) return 0;
    const now = this.clock.date();
    const since = new Date(now.getTime() - this.options.catchUpOnStartMs).toISOString();
    const where =
      '(next_check_at IS NULL OR (next_check_at > :at AND next_check_at < :never)) ' +
      'AND (created_at >= :since OR watched_from >= :since)';
    return this.reschedule(where, { at: now.toISOString(), never: NEVER.toISOString(), since }).catch(
      (err) => {
        this.logger.warn(`reconciliation catch-up failed: ${message(err)}`);
        return 0;
      },
    );
  }

  /** One round (`runOnce` runs one now; a call while one runs joins it). Never throws: failures are logged, counted. */
  protected async round(stopped: () => boolean): Promise<ReconciliationRound> {
    const result: ReconciliationRound = { leader: false, checked: 0, applied: 0, closed: 0, errors: 0 };
    if (this.destroyed) return result;
    try {
      const { leaseMs } = this.options;
      result.leader = await acquireLease(
        this.dataSource,
        RECONCILIATION_LEASE,
        this.holder,
        leaseMs,
        this.clock.now(),
      );
      if (!result.leader) return result;
      // Due days end at midnight where the service counts them (A2), as the wire profile in force says.
      const { timeZone } = await this.gateway.wireProfile();
      for (const record of await this.due()) {
        if (stopped()) break;
        await this.reconcile(record, result, timeZone);
        if (this.ceiling.remaining() === 0) break;
      }
    } catch (err) {
      this.logger.warn(`reconciliation round stopped: ${message(err)}`);
    }
    if (result.applied > 0)
      this.logger.log(`reconciliation applied ${result.applied} missed status change(s)`);
    return countRound(result);
  }

  /** Due records, never scheduled ones first (an invoice just linked, a duplicate just marked); at most `batchSize`. */
  private due(): Promise<InvoiceRecord[]> {
    return this.dataSource.getRepository(InvoiceRecord).find({
      where: [{ nextCheckAt: IsNull() }, { nextCheckAt: LessThanOrEqual(this.clock.date()) }],
      order: { nextCheckAt: { direction: 'ASC', nulls: 'FIRST' } },
      take: this.options.batchSize,
    });
  }

  private async reconcile(record: InvoiceRecord, result: ReconciliationRound, zone: string): Promise<void> {
    const now = this.clock.date();
    if (!isWatched(record)) {
      result.closed++;
      return this.takeOff(record);
    }
    const next = nextCheckAt(record, now, this.options, zone);
    // A record seen for the first time before its first step is only scheduled: the checkout just asked.
    const firstStep = this.options.stepsMs[0] ?? 0;
    if (record.nextCheckAt === null && now.getTime() - watchStart(record) < firstStep) {
      return next ? this.scheduleCheck(record.id, next) : this.takeOff(record);
    }
    if (!this.ceiling.take()) return; // stays due: the next round takes it
    result.checked++;
    try {
      if (await this.lookUp(record)) result.applied++;
    } catch (err) {
      result.errors++;
      this.logger.warn(`reconciling invoice record ${record.id} failed: ${message(err)}`);
      const soon = new Date(now.getTime() + RETRY_AFTER_ERROR_MS);
      return this.scheduleCheck(record.id, next && next < soon ? next : soon);
    }
    const after = await this.dataSource.getRepository(InvoiceRecord).findOneBy({ id: record.id });
    if (!after) return;
    if (!isWatched(after)) return this.takeOff(after);
    // Past its window, a duplicate that can still be paid stays on the schedule, daily, until canceled.
    const duplicate = this.enforceIfPayableDuplicate(after);
    const following =
      nextCheckAt(after, this.clock.date(), this.options, zone) ??
      (duplicate ? new Date(this.clock.now() + DAY) : null);
    if (!following)
      this.logger.log(`invoice record ${record.id}: still open past its window; no more checks`);
    return following ? this.scheduleCheck(record.id, following) : this.takeOff(after);
  }

  /** `true` when a status change was applied. */
  private async lookUp(record: InvoiceRecord): Promise<boolean> {
    if (record.gatewayId === null) {
      // A creation being confirmed: the checkout resolves it (found by referrer, or closed as not created).
      const resolved = await this.creations.resolveCreation(record);
      return record.statusCode !== resolved.statusCode;
    }
    const invoice = await this.gateway.findInvoiceById(record.gatewayId);
    if (!invoice) {
      this.logger.warn(`invoice record ${record.id}: the service does not know invoice ${record.gatewayId}`);
      return false;
    }
    if (await this.identity.whyNotOurs(invoice, record, 'number')) return false;
    return this.applyNewer(record, invoice);
  }

  /** Reports what the service says; one the transition table refuses (behind the record) is not written again. */
  private async applyNewer(record: InvoiceRecord, invoice: Invoice): Promise<boolean> {
    if (!decideTransition(record.statusCode, invoice.status.code).apply) return false;
    const { code, text } = invoice.status;
    const report = { recordId: record.id, code, text, source: 'sweep' as const, invoice };
    return (await this.statuses.apply(report)).result.applied;
  }

  /** Runs one sweep (a call while one runs joins it). Never throws: failures are in `error`. */
  sweep(): Promise<SweepResult> {
    this.sweeping ??= this.sweepPages().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweepPages(): Promise<SweepResult> {
    const result: SweepResult = { pages: 0, seen: 0, matched: 0, applied: 0, error: null };
    try {
      // The service's day (A2), in the zone the wire profile in force says.
      const { timeZone } = await this.gateway.wireProfile();
      const createdFrom = todayIn(timeZone, new Date(this.clock.now() - SWEEP_DAYS * DAY));
      for (let page = 1; ; page++) {
        const listed = await this.gateway.listInvoices({ page, limit: SWEEP_PAGE_SIZE, createdFrom });
        result.pages++;
        result.seen += listed.items.length;
        await this.sweepPage(listed.items, result);
        if (isLastPage(listed)) break;
      }
    } catch (err) {
      result.error = message(err);
      this.logger.warn(`reconciliation sweep stopped: ${result.error}`);
    }
    if (result.applied > 0)
      this.logger.log(`reconciliation sweep applied ${result.applied} missed status change(s)`);
    return result;
  }

  /** The listed invoices a record holds by number or referrer, matched by {@link recordOfInvoice}; others left alone. */
  private async sweepPage(invoices: Invoice[], result: SweepResult): Promise<void> {
    if (invoices.length === 0) return;
    const repo = this.dataSource.getRepository(InvoiceRecord);
    const referrers = invoices.flatMap((i) => (i.referrer ? [i.referrer] : []));
    const where = [
      { gatewayId: In(invoices.map((i) => i.id)) },
      ...(referrers.length ? [{ referrer: In(referrers) }] : []),
    ];
    const held = await repo.find({ where, select: { id: true, gatewayId: true, referrer: true } });
    const numbers = new Set(held.map((r) => r.gatewayId));
    const ours = new Set(held.map((r) => r.referrer));
    // The checkout's adopter links the invoice to its attempt, applies its status, cancels or alerts duplicates.
    const adopt = (i: Invoice) => this.lateInvoices.adopt(i, 'sweep');
    for (const invoice of invoices) {
      const byNumber = numbers.has(invoice.id);
      if (!byNumber && !(invoice.referrer && ours.has(invoice.referrer))) continue;
      const { record } = await recordOfInvoice(repo, this.identity, invoice, adopt);
      if (!record) continue;
      result.matched++;
      if (!byNumber) continue; // adopted: the adoption enforced one payable invoice
      if (await this.applyNewer(record, invoice)) result.applied++;
      if (record.duplicateOf !== null)
        this.enforceIfPayableDuplicate(await repo.findOneBy({ id: record.id }));
    }
  }

  /** A duplicate still payable after its check: the enforcement runs again (retrying its cancel), at its checks' pace. */
  private enforceIfPayableDuplicate(record: InvoiceRecord | null): boolean {
    if (!record?.duplicateOf || !statusIs(record.statusCode, 'open')) return false;
    emitSafely(this.events, this.logger, KEEP_ONE_PAYABLE, record.orderId);
    return true;
  }

  private async scheduleCheck(id: string, at: Date): Promise<void> {
    await this.reschedule('id = :id', { at: at.toISOString(), id });
  }

  /**
   * Off the schedule for good, decided on `record` as read: lands only while the record is still at that version. A
   * write since (a late invoice linked to a closed attempt, due again in the same write) must not be undone by it.
   */
  private async takeOff(record: InvoiceRecord): Promise<void> {
    const params = { at: NEVER.toISOString(), id: record.id, version: record.version };
    await this.reschedule('id = :id AND version = :version', params);
  }

  /**
   * Sets `next_check_at` only (no version bump: the checkout's own updates must not conflict with it); returns how
   * many rows. The table as its entity names it (unqualified: Medusa's schema is the connection's search path).
   */
  private async reschedule(where: string, params: Record<string, string | number>): Promise<number> {
    const table = this.dataSource.getMetadata(InvoiceRecord).tableName;
    const update = `UPDATE ${table} SET next_check_at = :at WHERE ${where} RETURNING id`;
    return (await runReturning(this.dataSource, update, params)).length;
  }
}

export { OpenInvoicesReconciler as ReconciliationService };
