import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { dialectOf, type Dialect } from '../persistence/dialect';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { runAfterCommit, transact, type UnitOfWork } from '../persistence/unit-of-work';
import {
  assertReport,
  NO_HISTORY,
  planStatus,
  ReportedRecordNotFoundError,
  type KnownHistory,
  type StatusPlan,
  type StatusReport,
  type StatusReportResult,
} from './status-plan';
import { changeOf } from './status-table';
import { StatusChangeDispatcher } from './status-dispatcher.service';
import { writeGuarded } from './guarded-status-write';

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
 * status history, and each applied change is handed to the {@link StatusChangeDispatcher} once its write committed.
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
    if (options.record && options.known) {
      const done = await this.applyGuarded(options.record, options.known, report, extra);
      if (done) return done;
    }
    return transact(this.dataSource, (tx) => this.applyIn(tx, report, extra));
  }

  /** The histories {@link ApplyOptions.known} needs, in one query (none where the dialect has no guarded write). */
  async knownHistories(recordIds: string[]): Promise<Map<string, KnownHistory>> {
    if (recordIds.length === 0 || !this.dialect.guardedStatusWrite) return new Map();
    return historiesOf(this.dataSource.manager, recordIds);
  }

  private async applyIn(
    tx: UnitOfWork,
    report: StatusReport,
    extra: Partial<InvoiceRecord>,
  ): Promise<AppliedStatus> {
    const { record, known } = await this.lockRecord(tx.em, report.recordId);
    const plan = planStatus(record, known, report, extra, this.handOverLease());
    await tx.em.getRepository(InvoiceStatusHistory).insert(plan.history);
    if (Object.keys(plan.patch).length > 0)
      await tx.em.getRepository(InvoiceRecord).update({ id: record.id }, plan.patch);
    tx.afterCommit(this.handOn(plan));
    return { result: plan.result, record: plan.written };
  }

  /** One guarded statement, its own commit; `null` when it wrote nothing (the record or its history moved since). */
  private async applyGuarded(
    record: InvoiceRecord,
    known: KnownHistory,
    report: StatusReport,
    extra: Partial<InvoiceRecord>,
  ): Promise<AppliedStatus | null> {
    if (!this.dialect.guardedStatusWrite || record.id !== report.recordId) return null;
    const plan = planStatus(record, known, report, extra, this.handOverLease());
    if (Object.keys(plan.patch).length === 0) return null;
    if (!(await writeGuarded(this.dataSource, plan.history, plan.patch, record.version, known))) return null;
    runAfterCommit(this.handOn(plan));
    return { result: plan.result, record: plan.written };
  }

  // Not on a shared connection, where a host port opening its own transaction at once could meet ours.
  private handOverLease(): (() => Date) | null {
    if (this.dialect.sharedConnection || !this.dispatcher.accepting) return null;
    return () => this.dispatcher.leaseUntil();
  }

  private handOn(plan: StatusPlan): () => void {
    const { result } = plan;
    if (plan.handOver) {
      const change = changeOf(plan.history, plan.written, plan.previousText);
      return () => this.dispatcher.handOver(plan.history, change);
    }
    if (result.applied) return () => this.dispatcher.kick(result.recordId);
    return () => this.logger.debug(`invoice ${result.recordId}: ${result.reason ?? 'not applied'}`);
  }

  // Two statements: one that waited for the lock still reads with the snapshot it started with.
  private async lockRecord(
    em: EntityManager,
    recordId: string,
  ): Promise<{ record: InvoiceRecord; known: KnownHistory }> {
    const qb = em.getRepository(InvoiceRecord).createQueryBuilder('r').where('r.id = :id', { id: recordId });
    const lock = this.dialect.rowLock;
    if (lock) qb.setLock(lock);
    const record = await qb.getOne();
    if (!record) throw new ReportedRecordNotFoundError(recordId);
    const known = (await historiesOf(em, [recordId])).get(recordId) ?? NO_HISTORY;
    return { record, known };
  }
}

async function historiesOf(em: EntityManager, recordIds: string[]): Promise<Map<string, KnownHistory>> {
  const known = new Map<string, KnownHistory>(recordIds.map((id) => [id, NO_HISTORY]));
  const rows = await em
    .getRepository(InvoiceStatusHistory)
    .createQueryBuilder('h')
    .select('h.invoiceRecordId', 'id')
    .addSelect('MAX(h.createdAt)', 'latest')
    .addSelect('SUM(CASE WHEN h.applied = :yes AND h.notifiedAt IS NULL THEN 1 ELSE 0 END)', 'open')
    .where('h.invoiceRecordId IN (:...recordIds)', { recordIds, yes: true })
    .groupBy('h.invoiceRecordId')
    .getRawMany<{ id: string; latest: string | null; open: string | number | null }>();
  for (const row of rows) known.set(row.id, { latest: row.latest, openChanges: Number(row.open ?? 0) });
  return known;
}
