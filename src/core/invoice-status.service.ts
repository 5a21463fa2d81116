import { Global, Injectable, Logger, Module } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { dialectOf, runInTransaction, type Dialect } from '../persistence/dialect';
import { InvoiceRecord } from '../persistence/invoice.entity';
import {
  assertReport,
  NO_HISTORY,
  planStatus,
  ReportedRecordNotFoundError,
  writeGuarded,
  type KnownHistory,
  type StatusPlan,
  type StatusReport,
  type StatusReportResult,
} from './status-plan';
import { messageOf } from './events';
import { changeOf } from './status-table';
import { StatusChangeDispatcher } from './status-dispatcher.service';

interface ApplyOptions {
  /** The record and history as read: one guarded statement writes if both are still so, else the locked path. */
  record?: InvoiceRecord;
  known?: KnownHistory;
  /** More fields of the record, written by the same write; not read here. */
  extra?: Partial<InvoiceRecord>;
}

/** What {@link InvoiceStatusService.apply} did, and the record as it left it. */
export interface AppliedStatus {
  result: StatusReportResult;
  record: InvoiceRecord;
}

/**
 * The one path that changes an invoice record's status: the transition table decides, every report is kept in the
 * status history, and each applied change is handed to the {@link StatusChangeDispatcher} once its write committed
 * (a rollback tells nobody; a failure there is logged, never thrown: the write committed, the caller's answer stands).
 */
@Injectable()
export class InvoiceStatusService {
  private readonly logger = new Logger(InvoiceStatusService.name);
  private readonly dialect: Dialect;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatcher: StatusChangeDispatcher,
  ) {
    this.dialect = dialectOf(dataSource);
  }

  /**
   * Records a report and applies it when the transition table allows; the host hears after the commit. Never from
   * inside a transaction (SQLite's writer queue is not re-entrant).
   */
  async apply(report: StatusReport, options: ApplyOptions = {}): Promise<AppliedStatus> {
    assertReport(report);
    const extra = options.extra ?? {};
    const { record, known } = options;
    // One guarded statement where the dialect has it, the record as read still so; else the locked transaction.
    let plan =
      record && known && this.dialect.guardedStatusWrite
        ? await this.applyGuarded(record, known, report, extra)
        : null;
    plan ??= await runInTransaction(this.dataSource, (em) => this.writeLocked(em, report, extra));
    this.afterCommit(plan);
    return { result: plan.result, record: plan.written };
  }

  /** The histories {@link ApplyOptions.known} needs, in one query. */
  async knownHistories(ids: string[], em = this.dataSource.manager): Promise<Map<string, KnownHistory>> {
    const known = new Map<string, KnownHistory>(ids.map((id) => [id, NO_HISTORY]));
    if (ids.length === 0) return known;
    const rows = await em
      .getRepository(InvoiceStatusHistory)
      .createQueryBuilder('h')
      .select('h.invoiceRecordId', 'id')
      .addSelect('MAX(h.createdAt)', 'latest')
      .addSelect('SUM(CASE WHEN h.applied = :yes AND h.notifiedAt IS NULL THEN 1 ELSE 0 END)', 'open')
      .where('h.invoiceRecordId IN (:...ids)', { ids, yes: true })
      .groupBy('h.invoiceRecordId')
      .getRawMany<{ id: string; latest: string | null; open: string | number | null }>();
    for (const row of rows) known.set(row.id, { latest: row.latest, openChanges: Number(row.open ?? 0) });
    return known;
  }

  private async writeLocked(
    em: EntityManager,
    report: StatusReport,
    extra: Partial<InvoiceRecord>,
  ): Promise<StatusPlan> {
    // Two statements: one that waited for the lock still reads with the snapshot it started with.
    const qb = em
      .getRepository(InvoiceRecord)
      .createQueryBuilder('r')
      .where('r.id = :id', { id: report.recordId });
    const record = await this.dialect.lockForWrite(qb).getOne();
    if (!record) throw new ReportedRecordNotFoundError(report.recordId);
    const known = (await this.knownHistories([record.id], em)).get(record.id) ?? NO_HISTORY;
    const plan = planStatus(record, known, report, extra, this.handOverLease());
    await em.getRepository(InvoiceStatusHistory).insert(plan.history);
    if (Object.keys(plan.patch).length > 0)
      await em.getRepository(InvoiceRecord).update({ id: record.id }, plan.patch);
    return plan;
  }

  /** One guarded statement, its own commit; `null` when it wrote nothing (the record or its history moved since). */
  private async applyGuarded(
    record: InvoiceRecord,
    known: KnownHistory,
    report: StatusReport,
    extra: Partial<InvoiceRecord>,
  ): Promise<StatusPlan | null> {
    if (record.id !== report.recordId) return null;
    const plan = planStatus(record, known, report, extra, this.handOverLease());
    if (Object.keys(plan.patch).length === 0) return null;
    return (await writeGuarded(this.dataSource, plan.history, plan.patch, record.version, known))
      ? plan
      : null;
  }

  // Not on a shared connection, where a host port opening its own transaction at once could meet ours.
  private handOverLease(): Date | null {
    return this.dialect.sharedConnection ? null : this.dispatcher.handOverLease();
  }

  private afterCommit(plan: StatusPlan): void {
    const { result } = plan;
    try {
      if (plan.handOver)
        this.dispatcher.handOver(plan.history, changeOf(plan.history, plan.written, plan.previousText));
      else if (result.applied) this.dispatcher.deliver(result.recordId);
      else this.logger.debug(`invoice ${result.recordId}: ${result.reason ?? 'not applied'}`);
    } catch (err) {
      this.logger.error(`after-commit work failed: ${messageOf(err)}`);
    }
  }
}

/** The status path and its outbox, global so every capability shares one dispatcher. */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService],
  exports: [StatusChangeDispatcher, InvoiceStatusService],
})
export class InvoiceStatusModule {}
