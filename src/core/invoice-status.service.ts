import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import {
  dialectOf,
  guardedStatusStatement,
  runInTransaction,
  type ColumnMetadata,
  type Dialect,
} from '../persistence/dialect';
import { InvoiceRecord, InvoiceStatusHistory } from '../persistence/invoice.entity';
import { emitSafely, KEEP_ONE_PAYABLE, messageOf, raiseAlert } from './events';

import { STATUS_REPORT_SOURCES, statusIs, statusRow } from '../domain/status-table';
import {
  NO_HISTORY,
  type AppliedStatus,
  type ApplyOptions,
  type KnownHistory,
  type StatusReport,
  type StatusReportResult,
  captured,
  capturedAmountChange,
  decideTransition,
  paymentMismatchOf,
  snapshotOf,
  transitionText,
} from './status-report';
import { StatusChangeDispatcher } from './status-dispatcher.service';
import { clip } from '../domain/text-and-days';
import { CLOCK, type Clock } from '../domain/clock';
import { queryReturning } from '../persistence/typeorm-compat';
import {
  InvalidStatusReportError,
  ReportedRecordNotFoundError,
  CreationMoveRefusedError,
} from './invoice.errors';
import { creationMoveRefusal, type CreationMove } from './invoice-record.store';
import { scheduleAfterWrite } from './reconciliation-watch';

/**
 * The one path that changes an invoice record's status: the transition table decides, every report is kept in the
 * status history, and each applied change is handed to the {@link StatusChangeDispatcher} once its write committed
 * (a rollback tells nobody; a failure there is logged, never thrown: the write committed, the caller's answer stands).
 */
@Injectable()
export class InvoiceStatusService {
  private readonly logger = new Logger(InvoiceStatusService.name);
  private readonly dialect: Dialect;
  /** The guarded statement of each patch's property list: a status write is on every checkout. */
  private readonly statements = new Map<string, ReturnType<typeof guardedStatusStatement>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatcher: StatusChangeDispatcher,
    private readonly events: EventEmitter2,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.dialect = dialectOf(dataSource);
  }

  /**
   * Records a report and applies it when the transition table allows; the host hears after the commit. Never from
   * inside a transaction (SQLite's writer queue is not re-entrant).
   */
  async apply(report: StatusReport, options: ApplyOptions = {}): Promise<AppliedStatus> {
    assertReport(report);
    const { record, known, creation } = options;
    // One guarded statement where the dialect has it, the record as read still so; else the locked transaction. A
    // creation move the record as read refuses is left to the locked path, which decides on the record as it is.
    const movable = !creation || !record || creationMoveRefusal(record, creation) === null;
    let plan: StatusPlan | null = null;
    if (record?.id === report.recordId && known && movable && this.dialect.guardedStatusWrite) {
      plan = await this.plan(this.dataSource.manager, record, known, report, creation);
      if (Object.keys(plan.patch).length === 0 || !(await this.writeGuarded(plan, record, known)))
        plan = null;
    }
    plan ??= await runInTransaction(this.dataSource, (em) => this.writeLocked(em, report, creation));
    this.afterCommit(plan);
    if (plan.amountChange) await this.raiseAmountChange(plan);
    return { result: plan.result, record: plan.written };
  }

  /**
   * A captured invoice's amounts reported anew (kept, the order left as it is): one alert per amount, raised by the
   * first history row that notes it (rows of a record are strictly ordered in time). Never throws: the write stands.
   */
  private async raiseAmountChange({ history, written }: StatusPlan): Promise<void> {
    try {
      const earlier = await this.dataSource.getRepository(InvoiceStatusHistory).countBy({
        invoiceRecordId: history.invoiceRecordId,
        note: history.note ?? '',
        createdAt: LessThan(history.createdAt),
      });
      if (earlier > 0) return;
      const message = `order ${written.orderId}, invoice ${written.gatewayId ?? '?'}: ${history.note}`;
      const alert = { kind: 'captured_amount_changed' as const, orderId: written.orderId, message };
      raiseAlert(this.events, this.logger, { ...alert, invoiceRecordId: written.id }, 'warn');
    } catch (err) {
      this.logger.error(
        `invoice ${written.id}: the alert of its amount reported anew failed: ${messageOf(err)}`,
      );
    }
  }

  /** The histories {@link ApplyOptions.known} needs, in one query. */
  async knownHistories(ids: string[], em = this.dataSource.manager): Promise<Map<string, KnownHistory>> {
    const known = new Map<string, KnownHistory>(ids.map((id) => [id, NO_HISTORY]));
    if (ids.length === 0) return known;
    const rows = await em
      .createQueryBuilder(InvoiceStatusHistory, 'h')
      .select('h.invoiceRecordId', 'id')
      .addSelect('MAX(h.createdAt)', 'latest')
      .addSelect('SUM(CASE WHEN h.applied = :yes AND h.notifiedAt IS NULL THEN 1 ELSE 0 END)', 'open')
      .where('h.invoiceRecordId IN (:...ids)', { ids, yes: true })
      .groupBy('h.invoiceRecordId')
      .getRawMany<{ id: string; latest: string | null; open: string | number | null }>();
    for (const row of rows) known.set(row.id, { latest: row.latest, openChanges: Number(row.open ?? 0) });
    return known;
  }

  private async writeLocked(em: EntityManager, report: StatusReport, creation?: CreationMove) {
    // Two statements: one that waited for the lock still reads with the snapshot it started with.
    const qb = em.createQueryBuilder(InvoiceRecord, 'r').where('r.id = :id', { id: report.recordId });
    const record = await this.dialect.lockForWrite(qb).getOne();
    if (!record) throw new ReportedRecordNotFoundError(report.recordId);
    const refused = creation ? creationMoveRefusal(record, creation) : null;
    if (refused) throw new CreationMoveRefusedError(record.id, refused);
    const known = (await this.knownHistories([record.id], em)).get(record.id) ?? NO_HISTORY;
    const plan = await this.plan(em, record, known, report, creation);
    await em.insert(InvoiceStatusHistory, plan.history);
    if (Object.keys(plan.patch).length > 0) await em.update(InvoiceRecord, { id: record.id }, plan.patch);
    return plan;
  }

  /** {@link planStatus} with the creation move, and a duplicate's mark cleared when its payment wins. */
  private async plan(
    em: EntityManager,
    record: InvoiceRecord,
    known: KnownHistory,
    report: StatusReport,
    creation?: CreationMove,
  ) {
    const extra: Partial<InvoiceRecord> = { ...creation?.patch };
    // A payment of an invoice marked as a duplicate of an unpaid one wins, unmarked (docs/checkout.md).
    const marked = record.duplicateOf;
    if (marked && !captured(record) && statusRow(report.code)?.session === 'captured') {
      if (!captured(await em.findOneBy(InvoiceRecord, { id: marked }))) extra.duplicateOf = null;
    }
    // Not on a shared connection, where a host port opening its own transaction at once could meet ours.
    const handOverLease = this.dialect.sharedConnection ? null : this.dispatcher.handOverLease();
    return planStatus(record, known, report, extra, handOverLease, this.clock.now());
  }

  /** History row and record patch in one CTE, written (`true`) only if the record is as read and `known` holds. */
  // Every history writer updates the record, so its version moves with either.
  private async writeGuarded({ history, patch }: StatusPlan, record: InvoiceRecord, known: KnownHistory) {
    const shape = Object.keys(patch);
    const statement = this.statements.get(shape.join()) ?? guardedStatusStatement(this.dataSource, shape);
    this.statements.set(shape.join(), statement);
    const prepare = (c: ColumnMetadata, v: unknown) => this.dataSource.driver.preparePersistentValue(v, c);
    const params: unknown[] = [
      history.invoiceRecordId,
      record.version,
      record.nextCheckAt?.toISOString() ?? null,
      ...statement.patchColumns.map((c) => prepare(c, patch[c.propertyName as keyof InvoiceRecord])),
      known.latest,
      known.openChanges,
      ...statement.historyColumns.map((c) => prepare(c, c.getEntityValue(history))),
    ];
    return (await queryReturning(this.dataSource.manager, statement.sql, params)).length === 1;
  }

  private afterCommit({ result, handOver, history, patch, written, previousText }: StatusPlan): void {
    // Unmarked (a payment won, or a stale mark cleared): the order's other invoice is canceled by the enforcement.
    if ('duplicateOf' in patch && patch.duplicateOf === null)
      emitSafely(this.events, this.logger, KEEP_ONE_PAYABLE, written.orderId);
    try {
      if (handOver) this.dispatcher.handOver(history, written, previousText);
      else if (result.applied) this.dispatcher.deliver(result.recordId);
      else this.logger.debug(`invoice ${result.recordId}: ${result.reason ?? 'not applied'}`);
    } catch (err) {
      this.logger.error(`after-commit work failed: ${messageOf(err)}`);
    }
  }
}

function assertReport(report: StatusReport): void {
  if (typeof report?.recordId !== 'string' || report.recordId.length === 0)
    throw new InvalidStatusReportError('recordId', 'must be a non-empty string');
  if (!Number.isSafeInteger(report.code))
    throw new InvalidStatusReportError('code', `must be an integer, got ${String(report.code)}`);
  if (!(STATUS_REPORT_SOURCES as readonly unknown[]).includes(report.source))
    throw new InvalidStatusReportError('source', `must be one of ${STATUS_REPORT_SOURCES.join(', ')}`);
}

/** What a report does, decided without I/O so both of the service's write paths apply the same plan. */
type StatusPlan = ReturnType<typeof planStatus>;

/** What a report does to a record as read: its history row, the record's patch (with `extra`) and the result. */
export function planStatus(
  record: InvoiceRecord,
  known: KnownHistory,
  report: StatusReport,
  extra: Partial<InvoiceRecord>,
  handOverLease: Date | null,
  now: number,
) {
  const decision = decideTransition(record.statusCode, report.code);
  const worded = transitionText(decision);
  const mismatch = decision.apply ? paymentMismatchOf(report.code, report.invoice, record) : null;
  // Kept as stored by the snapshot; noted, and raised once (a refused report is a stale one: nothing to tell).
  const refused = !decision.apply && record.statusCode !== report.code;
  const amountChange = refused ? null : capturedAmountChange(record, report.invoice);
  const createdAt = nextHistoryTime(known.latest, now);
  const text = clip(report.text ?? report.invoice?.status.text ?? null, 128);
  // With no earlier change still to deliver, the new one is written leased to this instance and handed over.
  const handOver = decision.apply && known.openChanges === 0 && handOverLease !== null;
  const history: InvoiceStatusHistory = Object.assign(new InvoiceStatusHistory(), {
    id: randomUUID(),
    invoiceRecordId: record.id,
    fromCode: record.statusCode,
    toCode: report.code,
    statusText: text,
    source: report.source,
    applied: decision.apply,
    // The transition is in the row's codes (`transitionOfRow`); the note keeps only what they cannot say.
    note: clip(mismatch ?? amountChange ?? null, 255),
    alert: mismatch ? 'amount_mismatch' : (decision.alert ?? null),
    // A refused report has nothing to notify: it is closed at once and stays out of the outbox scan.
    notifiedAt: decision.apply ? null : createdAt,
    notifyAttempts: 0,
    notifyError: null,
    notifyLockedUntil: handOver ? handOverLease : null,
    createdAt,
  });

  // A refused report never touches the record: a stale payload must not overwrite fresher data.
  const patch: Partial<InvoiceRecord> = { ...extra };
  if (decision.apply || record.statusCode === report.code)
    Object.assign(patch, report.invoice ? snapshotOf(report.invoice, record) : {}, { updatedAt: createdAt });
  if (decision.apply) {
    Object.assign(patch, { statusCode: report.code, statusText: text });
    if (statusIs(report.code, 'releasesOrder')) patch.openOrderId = null;
    if (mismatch) patch.amountMismatch = true;
  }
  // Back on the reconciliation's schedule in this same write, when it applies a watched status or moves the due date.
  Object.assign(patch, scheduleAfterWrite(record, patch, new Date(now)));
  const written: InvoiceRecord =
    Object.keys(patch).length > 0 ? { ...record, ...patch, version: record.version + 1 } : record;
  const result: StatusReportResult = {
    applied: decision.apply,
    previousCode: record.statusCode,
    verdict: decision.verdict,
    ...(worded ? { reason: worded } : {}),
    ...(mismatch ? { alert: 'amount_mismatch' as const, reason: mismatch } : {}),
    ...(decision.alert && !mismatch ? { alert: decision.alert } : {}),
    historyId: history.id,
    recordId: record.id,
  };
  return { history, patch, written, result, handOver, amountChange, previousText: record.statusText };
}

/** Now, or 1 ms after the invoice's latest history row, so history (and notification) order is strict. */
function nextHistoryTime(latest: string | null, now: number): Date {
  const at = latest ? Date.parse(latest) : NaN;
  return new Date(Number.isFinite(at) && at >= now ? at + 1 : now);
}
