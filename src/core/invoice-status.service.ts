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

/** How a caller applies a report; every field is optional. */
interface ApplyOptions {
  /**
   * The record exactly as the caller read it, with its status history (`known`, from {@link knownHistories}):
   * where the dialect allows, one guarded statement writes the report if both are still so, with no lock, read or
   * transaction. Otherwise, or when the guard fails, the locked path decides.
   */
  record?: InvoiceRecord;
  known?: KnownHistory;
  /** More fields of the record, written by the same write (the checkout's creation state); not read here. */
  extra?: Partial<InvoiceRecord>;
}

/** What {@link InvoiceStatusService.apply} did, and the record as it left it (no need to read it back). */
export interface AppliedStatus {
  result: StatusReportResult;
  record: InvoiceRecord;
}

/**
 * THE one path that changes an invoice record's status. Checkout, webhooks, refunds and the reconciliations all
 * report here; the transition table (`status-transitions.ts`) decides, every report is kept in the status history,
 * and each applied change is handed to the {@link StatusChangeDispatcher} once its write committed, to reach the
 * host's port and the event bus once.
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
   * Records a status report and applies it when the transition table allows: reads the record's current code (its
   * row locked), decides, writes a history row (applied or not) and updates the record, in one transaction or one
   * guarded statement ({@link ApplyOptions.record}). An applied change reaches the host only after that commit.
   * On SQLite, never from inside a transaction: the writer queue is not re-entrant. Throws {@link ReportedRecordNotFoundError} for an unknown `recordId` and
   * `InvalidStatusReportError` for a malformed report; nothing is written then.
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

  /**
   * The status history of these records as {@link ApplyOptions.known} needs it, in one query (where the dialect has
   * no guarded statement, this reads nothing). Records without history are {@link NO_HISTORY}.
   */
  async knownHistories(recordIds: string[]): Promise<Map<string, KnownHistory>> {
    if (recordIds.length === 0 || !this.dialect.guardedStatusWrite) return new Map();
    return historiesOf(this.dataSource.manager, recordIds);
  }

  /** The locked path: in `tx`, the record's row locked, the change handed on after `tx` commits. */
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

  /**
   * One guarded statement for a record as the caller read it: `null` when it wrote nothing (the record
   * or its history was written since, the report would not update the record, or the database has no such
   * statement). The statement is its own commit, so the change is handed on at once.
   */
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

  /**
   * With no earlier change of the invoice still to deliver, a new one is written held by this instance and handed
   * to the dispatcher after commit: delivered without reading it back. Not on a shared connection, where a host port
   * that opens its own transaction at once could meet one of ours: there the dispatcher reads the change back first,
   * outside our transaction.
   */
  private handOverLease(): (() => Date) | null {
    if (this.dialect.sharedConnection || !this.dispatcher.accepting) return null;
    return () => this.dispatcher.leaseUntil();
  }

  /** What a written plan tells once committed: the change handed over, or a kick of the dispatcher. */
  private handOn(plan: StatusPlan): () => void {
    const { result } = plan;
    if (plan.handOver) {
      const change = changeOf(plan.history, plan.written, plan.previousText);
      return () => this.dispatcher.handOver(plan.history, change);
    }
    if (result.applied) return () => this.dispatcher.kick(result.recordId);
    return () => this.logger.debug(`invoice ${result.recordId}: ${result.reason ?? 'not applied'}`);
  }

  /**
   * The record's row, locked until the transaction ends (PostgreSQL; SQLite serializes writers), then its latest
   * history time and how many of its applied changes are still to deliver. Two statements, not one: a statement
   * that waited for the lock still reads with the snapshot it started with, so the history must be read after it.
   */
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

/**
 * The latest history time and the applied changes still to deliver of each record, in one query; a record without
 * history is {@link NO_HISTORY}.
 */
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
