import type { StatusDispatchSettings } from '../options/notifications.options';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from './events';
import { Coalescer } from './coalescer';
import { ORDER_PAYMENT_PORT, OrderPaymentPort, PaymentStatusChange } from './ports';
import { changeOf } from './status-table';
import { doublingDelayMs } from './queue/backoff';
import { LeasedRows } from './queue/leased-rows';
import { clip } from './text-bounds';
import { resolveNotificationsOptions } from '../options/notifications.options';

export const STATUS_DISPATCH_OPTIONS = Symbol('INVOICE_PAYMENTS_STATUS_DISPATCH_OPTIONS');

const LOCK_BUSY_RETRY_MS = 100;
const MAX_CLOSED_TOGETHER = 100;

/**
 * Delivers each applied status change to the host's {@link OrderPaymentPort} and the event bus, once and in order per
 * invoice. The status history is the outbox (open until `notifiedAt`), so a crash is retried, never lost; a throwing
 * port is retried with backoff, later changes waiting behind; a lease keeps it to one instance per change.
 */
@Injectable()
export class StatusChangeDispatcher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(StatusChangeDispatcher.name);
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly retryAt = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly wakeUps = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly options: Required<StatusDispatchSettings>;
  private readonly rows: LeasedRows<InvoiceStatusHistory>;
  private readonly closer = new Coalescer<string, void>(async (ids) => {
    await this.rows.finishAll(ids, {
      notifiedAt: new Date(),
      notifyAttempts: () => 'notify_attempts + 1',
      notifyError: null,
    });
    return ids.map(() => undefined);
  }, MAX_CLOSED_TOGETHER);
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
    @Optional() @Inject(ORDER_PAYMENT_PORT) private readonly port?: OrderPaymentPort | null,
    @Optional() @Inject(STATUS_DISPATCH_OPTIONS) options?: StatusDispatchSettings | null,
  ) {
    this.options = resolveNotificationsOptions(options ?? {});
    this.rows = new LeasedRows(
      dataSource,
      InvoiceStatusHistory,
      {
        table: dataSource.getMetadata(InvoiceStatusHistory).tableName,
        open: { sql: (t) => `${t}notified_at IS NULL`, where: { notifiedAt: IsNull() } },
        lockedUntil: 'notify_locked_until',
      },
      () => this.options.leaseMs,
    );
  }

  onModuleInit(): void {
    if (!this.port)
      this.logger.log('no ORDER_PAYMENT_PORT provided: status changes go to the event bus only');
    if (this.options.pollIntervalMs > 0) {
      const timer = setInterval(() => void this.poll(), this.options.pollIntervalMs);
      timer.unref();
      this.timers.add(timer);
    }
    if (this.options.pollOnStart) void this.poll();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.wakeUps.clear();
    await Promise.allSettled([...this.running.values()]);
  }

  /** Starts (or re-runs) delivery of an invoice's undelivered changes. Returns at once. */
  kick(recordId: string): void {
    if (this.stopped) return;
    if (this.running.has(recordId)) {
      this.again.add(recordId);
      return;
    }
    const run: Promise<void> = (async () => {
      do {
        this.again.delete(recordId);
        await this.dispatchInvoice(recordId);
      } while (this.again.has(recordId) && !this.stopped);
    })()
      .catch((err: unknown) =>
        this.logger.error(`notifying invoice ${recordId} failed: ${errorMessage(err)}`),
      )
      .finally(() => {
        if (this.running.get(recordId) === run) this.running.delete(recordId);
      });
    this.running.set(recordId, run);
  }

  /** Kicks up to 500 invoices with undelivered changes. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    try {
      const rows = await this.dataSource
        .getRepository(InvoiceStatusHistory)
        .createQueryBuilder('h')
        .select('DISTINCT h.invoiceRecordId', 'recordId')
        .where('h.notifiedAt IS NULL AND h.applied = :applied', { applied: true })
        .limit(500)
        .getRawMany<{ recordId: string }>();
      for (const row of rows) this.kick(row.recordId);
    } catch (err) {
      this.logger.warn(`looking for undelivered status changes failed: ${errorMessage(err)}`);
    }
  }

  /** Resolves once nothing is being delivered (retries waiting on their backoff are not awaited). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  // Each step its own short query: no connection is held while the port runs.
  private async dispatchInvoice(recordId: string): Promise<void> {
    const history = this.dataSource.getRepository(InvoiceStatusHistory);
    while (!this.stopped) {
      const row = await history.findOne({
        where: { invoiceRecordId: recordId, applied: true, notifiedAt: IsNull() },
        order: { createdAt: 'ASC', id: 'ASC' },
      });
      if (!row) return;
      const due = this.retryAt.get(row.id);
      if (due !== undefined && due > Date.now()) return this.later(recordId, due - Date.now());
      const held = row.notifyLockedUntil ? row.notifyLockedUntil.getTime() - Date.now() : 0;
      // Another instance is delivering this change: later changes of the invoice wait behind it.
      if (held > 0) return this.later(recordId, Math.min(held, LOCK_BUSY_RETRY_MS * 10));
      if (!(await this.rows.claim(row.id, false))) return this.later(recordId, LOCK_BUSY_RETRY_MS);
      const record = await this.dataSource.getRepository(InvoiceRecord).findOneBy({ id: recordId });
      if (!record) return;
      const change = await statusChangeOf(this.dataSource.manager, row, record);
      if (!(await this.deliverLeased(row, change))) return;
    }
  }

  /** Delivers a change written leased to this instance ({@link leaseUntil}) with no read back; a poll after a crash. */
  handOver(row: InvoiceStatusHistory, change: PaymentStatusChange): void {
    if (this.stopped) return;
    const recordId = row.invoiceRecordId;
    const before = this.running.get(recordId);
    const run: Promise<void> = (before ?? Promise.resolve())
      .then(() => this.deliverLeased(row, change))
      .then(() => undefined)
      .catch((err: unknown) =>
        this.logger.error(`notifying invoice ${recordId} failed: ${errorMessage(err)}`),
      )
      .finally(() => {
        if (this.running.get(recordId) !== run) return;
        this.running.delete(recordId);
        if (this.again.delete(recordId)) this.kick(recordId);
      });
    this.running.set(recordId, run);
  }

  /** Whether {@link handOver} delivers (not once stopping: a change is then left to a poll). */
  get accepting(): boolean {
    return !this.stopped;
  }

  /** Until when a change written now is held for this instance's {@link handOver}. */
  leaseUntil(): Date {
    return new Date(Date.now() + this.options.leaseMs);
  }

  /** `false` when the port threw: the row is released with its attempt counted, retried after the backoff. */
  private async deliverLeased(row: InvoiceStatusHistory, change: PaymentStatusChange): Promise<boolean> {
    const recordId = row.invoiceRecordId;
    try {
      if (this.port) await this.port.onPaymentStatusChanged(change);
    } catch (err) {
      const attempts = row.notifyAttempts + 1;
      const delay = doublingDelayMs(attempts, this.options.retryBaseDelayMs, this.options.retryMaxDelayMs);
      this.logger.warn(`order port refused change ${row.id} (attempt ${attempts}); retry in ${delay} ms`);
      await this.rows.finish(row, {
        notifyAttempts: attempts,
        notifyError: clip(errorMessage(err), 2000),
        notifyLockedUntil: null,
      });
      this.retryAt.set(row.id, Date.now() + delay);
      this.later(recordId, delay);
      return false;
    }
    this.retryAt.delete(row.id);
    this.emit(InvoicePaymentsEvents.StatusChanged, change);
    if (row.alert === 'paid_after_cancel' || row.alert === 'amount_mismatch') {
      const alert: InvoicePaymentsAlert = {
        kind: row.alert,
        orderId: change.orderId,
        invoiceRecordId: change.invoiceRecordId,
        message:
          row.note ??
          (row.alert === 'paid_after_cancel'
            ? 'paid after the invoice was closed: the money must go back'
            : 'the amount paid is not what the invoice was created for'),
      };
      this.emit(InvoicePaymentsEvents.Alert, alert);
    }
    // The lease holder is the only writer of the row's count.
    await this.closer.submit(row.id);
    return true;
  }

  private emit(event: string, payload: unknown): void {
    try {
      this.events.emit(event, payload);
    } catch (err) {
      // A listener's bug must not make the port hear the change twice.
      this.logger.error(`a listener of ${event} threw: ${errorMessage(err)}`);
    }
  }

  /** One pending wake-up per invoice (the earliest) is enough. */
  private later(recordId: string, delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(1, delayMs);
    const existing = this.wakeUps.get(recordId);
    if (existing && existing.at <= at) return;
    if (existing) {
      clearTimeout(existing.timer);
      this.timers.delete(existing.timer);
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.wakeUps.delete(recordId);
      this.kick(recordId);
    }, at - Date.now());
    timer.unref();
    this.timers.add(timer);
    this.wakeUps.set(recordId, { at, timer });
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The previous status's text is read from its own applied row. */
async function statusChangeOf(
  em: EntityManager,
  row: InvoiceStatusHistory,
  record: InvoiceRecord,
): Promise<PaymentStatusChange> {
  let previousText: string | null = null;
  if (row.fromCode !== null) {
    const before = await em.getRepository(InvoiceStatusHistory).findOne({
      where: {
        invoiceRecordId: row.invoiceRecordId,
        applied: true,
        toCode: row.fromCode,
        createdAt: LessThan(row.createdAt),
      },
      order: { createdAt: 'DESC' },
    });
    previousText = before?.statusText ?? null;
  }
  return changeOf(row, record, previousText);
}
