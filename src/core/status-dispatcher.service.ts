import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, LessThan } from 'typeorm';
import { InvoiceRecord, InvoiceStatusHistory } from '../persistence/invoice.entity';
import { emitSafely, InvoicePaymentsAlert, InvoicePaymentsEvents, messageOf } from './events';
import {
  ORDER_PAYMENT_PORT,
  type OrderPaymentPort,
  type PaymentStatusChange,
  type PaymentStatusSnapshot,
} from './ports';
import { doublingDelayMs } from './queue/backoff';
import { type Held, LeasedRows } from './queue/leased-rows';
import { Coalescer, Poller } from './queue/poller';
import { clip } from '../domain/text-and-days';
import { CLOCK, type Clock } from '../domain/clock';
import { transitionOfRow, transitionText } from './status-report';
import { sessionStatusOfCode, statusRow } from '../domain/status-table';
import { int, MINUTE, resolveNumbers, type NumberOptions } from '../domain/option-fields';

export const STATUS_DISPATCH_OPTIONS = Symbol('INVOICE_PAYMENTS_STATUS_DISPATCH_OPTIONS');

const NOTIFICATIONS = {
  /** Look for undelivered changes (after a crash, or another instance's) every this many ms. Default 5000; 0 off. */
  pollIntervalMs: int(0, 5000),
  /** Delay before the first retry after the host's port threw. Doubles each attempt. Default 1000. */
  retryBaseDelayMs: int(1, 1000),
  /** Ceiling of the retry delay. Default 300000 (5 minutes). */
  retryMaxDelayMs: int(1, 5 * MINUTE),
  /** How long an instance holds the change it delivers; a longer port call may be repeated. Default 60000. */
  leaseMs: int(1, MINUTE),
} as const;

/** How applied status changes are delivered to the host's port (`notifications`). */
export type StatusDispatchOptions = NumberOptions<typeof NOTIFICATIONS>;

/** `notifications` with its defaults; without `workers`, no polling (changes applied here are still delivered). */
export function resolveNotificationsOptions(options: StatusDispatchOptions = {}, workers = true) {
  const numbers = resolveNumbers('notifications', NOTIFICATIONS, options);
  return { ...numbers, pollIntervalMs: workers ? numbers.pollIntervalMs : 0, pollOnStart: workers };
}

type ResolvedDispatchOptions = ReturnType<typeof resolveNotificationsOptions>;

const LOCK_BUSY_RETRY_MS = 100;
const MAX_CLOSED_TOGETHER = 100;

/**
 * Delivers each applied status change to the host's {@link OrderPaymentPort} and the event bus, once and in order per
 * invoice. The status history is the outbox (open until `notifiedAt`): a crash or a throwing port is retried, never
 * lost, later changes waiting behind; a lease keeps each change to one instance.
 */
@Injectable()
export class StatusChangeDispatcher extends Poller<void> implements OnModuleInit {
  private readonly deliveries = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private readonly wakeUps = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly rows: LeasedRows<InvoiceStatusHistory>;
  private readonly closer = new Coalescer<Held<InvoiceStatusHistory>, void>(async (rows) => {
    await this.rows.finishAll(rows, {
      notifiedAt: this.clock.date(),
      notifyAttempts: () => 'notify_attempts + 1',
      notifyError: null,
    });
    return rows.map(() => undefined);
  }, MAX_CLOSED_TOGETHER);
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
    @Inject(CLOCK) clock: Clock,
    @Inject(STATUS_DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    @Optional() @Inject(ORDER_PAYMENT_PORT) private readonly port?: OrderPaymentPort | null,
  ) {
    super('status delivery', new Logger(StatusChangeDispatcher.name), options.pollIntervalMs, clock);
    this.rows = new LeasedRows(
      dataSource,
      InvoiceStatusHistory,
      {
        table: dataSource.getMetadata(InvoiceStatusHistory).tableName,
        open: (t) => `${t}notified_at IS NULL`,
        lockedUntil: 'notify_locked_until',
      },
      () => this.options.leaseMs,
      clock,
    );
  }

  onModuleInit(): void {
    if (!this.port)
      this.logger.log('no ORDER_PAYMENT_PORT provided: status changes go to the event bus only');
    if (this.options.pollIntervalMs > 0) this.start();
    else if (this.options.pollOnStart) void this.runOnce();
  }

  override async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.wakeUps.values()) clearTimeout(timer);
    this.wakeUps.clear();
    await Promise.all([super.onModuleDestroy(), Promise.allSettled([...this.deliveries.values()])]);
  }

  /** Starts (or re-runs) delivery of an invoice's undelivered changes. Returns at once. */
  deliver(recordId: string): void {
    if (this.stopped) return;
    if (this.deliveries.has(recordId)) this.rerun.add(recordId);
    else this.track(recordId, () => this.dispatchInvoice(recordId));
  }

  /** Delivers a change written under this instance's {@link handOverLease} with no read back (a crash: a poll). */
  handOver(row: InvoiceStatusHistory, record: InvoiceRecord, previousText: string | null): void {
    if (this.stopped) return;
    const change = changeOf(row, record, previousText);
    // Held under the status path's hand-over lease, not a claim's: its close and retry ask only that it be open.
    this.track(row.invoiceRecordId, () => this.deliverLeased({ ...row, notifyLockedUntil: null }, change));
  }

  /** Delivers the changes of up to 500 invoices with undelivered changes ({@link runOnce} runs one now). */
  protected async round(): Promise<void> {
    if (this.stopped) return;
    try {
      const table = this.dataSource.getMetadata(InvoiceStatusHistory).tableName;
      const rows: Array<{ id: string }> = await this.dataSource.query(
        `SELECT DISTINCT invoice_record_id AS id FROM ${table} WHERE notified_at IS NULL AND applied LIMIT 500`,
      );
      for (const row of rows) this.deliver(row.id);
    } catch (err) {
      this.logger.warn(`looking for undelivered status changes failed: ${messageOf(err)}`);
    }
  }

  /** Resolves once nothing is being delivered (retries waiting on their backoff are not awaited). */
  async drain(): Promise<void> {
    while (this.deliveries.size > 0) await Promise.allSettled([...this.deliveries.values()]);
  }

  /** Until when a change written now is held for this instance's {@link handOver}; `null` once stopping (a poll's). */
  handOverLease(): Date | null {
    return this.stopped ? null : new Date(this.clock.now() + this.options.leaseMs);
  }

  /** Runs `work` after the invoice's delivery under way; then a pass asked for meanwhile ({@link deliver}). */
  private track(recordId: string, work: () => Promise<unknown>): void {
    const run: Promise<void> = (this.deliveries.get(recordId) ?? Promise.resolve())
      .then(work)
      .then(
        () => undefined,
        (err: unknown) => this.logger.error(`notifying invoice ${recordId} failed: ${messageOf(err)}`),
      )
      .finally(() => {
        if (this.deliveries.get(recordId) !== run) return;
        this.deliveries.delete(recordId);
        if (this.rerun.delete(recordId)) this.deliver(recordId);
      });
    this.deliveries.set(recordId, run);
  }

  // Each step its own short query: no connection is held while the port runs.
  private async dispatchInvoice(recordId: string): Promise<void> {
    const history = this.dataSource.getRepository(InvoiceStatusHistory);
    while (!this.stopped) {
      const next = await history.findOne({
        where: { invoiceRecordId: recordId, applied: true, notifiedAt: IsNull() },
        order: { createdAt: 'ASC', id: 'ASC' },
      });
      if (!next) return;
      const held = next.notifyLockedUntil ? next.notifyLockedUntil.getTime() - this.clock.now() : 0;
      // Another instance is delivering this change, or it waits for its retry: later changes wait behind it.
      if (held > 0) return this.later(recordId, Math.min(held, LOCK_BUSY_RETRY_MS * 10));
      // As claimed, the row carries the lease its writes are guarded by.
      const row = await this.rows.claim(next.id);
      if (!row) return this.later(recordId, LOCK_BUSY_RETRY_MS);
      const record = await this.dataSource.getRepository(InvoiceRecord).findOneBy({ id: recordId });
      if (!record) return;
      // The previous status's text is read from its own applied row.
      const before =
        row.fromCode === null
          ? null
          : await history.findOne({
              where: {
                invoiceRecordId: recordId,
                applied: true,
                toCode: row.fromCode,
                createdAt: LessThan(row.createdAt),
              },
              order: { createdAt: 'DESC' },
            });
      if (!(await this.deliverLeased(row, changeOf(row, record, before?.statusText ?? null)))) return;
    }
  }

  /** `false` when the port threw: the row stays leased until its retry, after the backoff, with its attempt counted. */
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
        notifyError: clip(messageOf(err), 2000),
        notifyLockedUntil: new Date(this.clock.now() + delay),
      });
      this.later(recordId, delay);
      return false;
    }
    // A listener's bug must not make the port hear the change twice.
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.StatusChanged, change);
    if (change.alert) {
      emitSafely(this.events, this.logger, InvoicePaymentsEvents.Alert, {
        kind: change.alert,
        orderId: change.orderId,
        invoiceRecordId: change.invoiceRecordId,
        // A mismatch is in the row's note; a paid-after-close is worded from the row's codes.
        message: row.note ?? transitionText(transitionOfRow(row)) ?? change.alert,
      } satisfies InvoicePaymentsAlert);
    }
    // The lease holder is the only writer of the row's count.
    await this.closer.submit(row);
    return true;
  }

  /**
   * One pending wake-up per invoice (the earliest) is enough. A one-shot timer, not a loop beside the poll: a retry
   * is due at its own backoff, which the poll's fixed interval would round up (the poll still finds it if this dies).
   */
  private later(recordId: string, delayMs: number): void {
    if (this.stopped) return;
    const delay = Math.max(1, delayMs);
    const at = this.clock.now() + delay;
    const existing = this.wakeUps.get(recordId);
    if (existing && existing.at <= at) return;
    clearTimeout(existing?.timer);
    const timer = setTimeout(() => {
      this.wakeUps.delete(recordId);
      this.deliver(recordId);
    }, delay);
    timer.unref();
    this.wakeUps.set(recordId, { at, timer });
  }
}

/** What the host is told of an applied history row, the previous status's text given. */
function changeOf(
  row: InvoiceStatusHistory,
  record: InvoiceRecord,
  previousText: string | null,
): PaymentStatusChange {
  // Only applied rows are dispatched; an admin's resolution row (no code) is never applied.
  if (row.toCode === null || row.source === 'admin') {
    throw new Error(`status history row ${row.id} is not a status change`);
  }
  return {
    orderId: record.orderId,
    invoiceRecordId: record.id,
    gatewayId: record.gatewayId,
    method: record.method,
    previous: row.fromCode === null ? null : statusSnapshot(row.fromCode, previousText),
    current: statusSnapshot(row.toCode, row.statusText, record.amountMismatch),
    source: row.source,
    ...(row.alert === 'paid_after_cancel' || row.alert === 'amount_mismatch' ? { alert: row.alert } : {}),
    ...(record.duplicateOf ? { duplicateOf: record.duplicateOf } : {}),
    occurredAt: row.createdAt,
  };
}

/** One side of a change; money taken that is not the invoice's amount asks for a person instead of capturing. */
function statusSnapshot(code: number, text: string | null, amountMismatch = false): PaymentStatusSnapshot {
  const row = statusRow(code);
  // Applied changes only ever carry listed codes; the fallback keeps a corrupted row from stopping the outbox.
  if (!row) return { code, text, sessionStatus: 'error', orderPaymentStatus: 'requires_action' };
  const sessionStatus = sessionStatusOfCode(code, amountMismatch)!;
  // Money held for a person (the session is not the status's own) asks the order for action.
  const orderPaymentStatus = sessionStatus === row.session ? row.order : 'requires_action';
  return { code, text, sessionStatus, orderPaymentStatus };
}
