import { randomUUID } from 'node:crypto';
import { Global, Injectable, Logger, Module } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { centsToDecimalString } from '../gateway/money';
import { InvoiceStatusCode } from '../gateway/status';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import {
  dialectOf,
  guardedStatusStatement,
  runInTransaction,
  type ColumnMetadata,
  type Dialect,
} from '../persistence/dialect';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { emitSafely, KEEP_ONE_PAYABLE, messageOf } from './events';
import { creationMoveRefusal, CreationMoveRefusedError, type CreationMove } from './creation-move';
import { InvoiceIdentity } from './invoice-identity';
import { changeOf } from './ports';
import {
  decideTransition,
  InvalidStatusReportError,
  NO_HISTORY,
  ReportedRecordNotFoundError,
  STATUS_REPORT_SOURCES,
  statusRow,
  type AppliedStatus,
  type ApplyOptions,
  type KnownHistory,
  type StatusReport,
  type StatusReportResult,
} from './status-table';
import { StatusChangeDispatcher } from './status-dispatcher.service';
import { clip } from './text-bounds';
import { queryReturning } from './typeorm-compat';

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
    const extra = creation?.patch ?? {};
    // One guarded statement where the dialect has it, the record as read still so; else the locked transaction. A
    // creation move the record as read refuses is left to the locked path, which decides on the record as it is.
    const movable = !creation || !record || creationMoveRefusal(record, creation) === null;
    let plan: StatusPlan | null = null;
    if (record?.id === report.recordId && known && movable && this.dialect.guardedStatusWrite) {
      const patch = (await this.winsOver(this.dataSource.manager, record, report))
        ? { ...extra, duplicateOf: null }
        : extra;
      plan = planStatus(record, known, report, patch, this.handOverLease());
      if (Object.keys(plan.patch).length === 0 || !(await this.writeGuarded(plan, record.version, known)))
        plan = null;
    }
    plan ??= await runInTransaction(this.dataSource, (em) => this.writeLocked(em, report, creation));
    this.afterCommit(plan);
    return { result: plan.result, record: plan.written };
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
    let extra = creation?.patch ?? {};
    const known = (await this.knownHistories([record.id], em)).get(record.id) ?? NO_HISTORY;
    if (await this.winsOver(em, record, report)) extra = { ...extra, duplicateOf: null };
    const plan = planStatus(record, known, report, extra, this.handOverLease());
    await em.insert(InvoiceStatusHistory, plan.history);
    if (Object.keys(plan.patch).length > 0) await em.update(InvoiceRecord, { id: record.id }, plan.patch);
    return plan;
  }

  /** A payment of an invoice marked as a duplicate of an unpaid one: it wins, unmarked (docs/checkout.md). */
  private async winsOver(em: EntityManager, record: InvoiceRecord, { code }: StatusReport): Promise<boolean> {
    const paid = (r: InvoiceRecord | null) => statusRow(r?.statusCode)?.session === 'captured';
    if (!record.duplicateOf || paid(record) || statusRow(code)?.session !== 'captured') return false;
    return !paid(await em.findOneBy(InvoiceRecord, { id: record.duplicateOf }));
  }

  /** History row and record patch in one CTE, written (`true`) only if the record is at `version`, `known` holds. */
  // Every history writer updates the record, so its version moves with either.
  private async writeGuarded({ history, patch }: StatusPlan, version: number, known: KnownHistory) {
    const shape = Object.keys(patch);
    const statement = this.statements.get(shape.join()) ?? guardedStatusStatement(this.dataSource, shape);
    this.statements.set(shape.join(), statement);
    const prepare = (c: ColumnMetadata, v: unknown) => this.dataSource.driver.preparePersistentValue(v, c);
    const params: unknown[] = [
      history.invoiceRecordId,
      version,
      ...statement.patchColumns.map((c) => prepare(c, patch[c.propertyName as keyof InvoiceRecord])),
      known.latest,
      known.openChanges,
      ...statement.historyColumns.map((c) => prepare(c, c.getEntityValue(history))),
    ];
    return (await queryReturning(this.dataSource.manager, statement.sql, params)).length === 1;
  }

  // Not on a shared connection, where a host port opening its own transaction at once could meet ours.
  private handOverLease(): Date | null {
    return this.dialect.sharedConnection ? null : this.dispatcher.handOverLease();
  }

  private afterCommit({ result, handOver, history, patch, written, previousText }: StatusPlan): void {
    // Unmarked (a payment won, or a stale mark cleared): the order's other invoice is canceled by the enforcement.
    if ('duplicateOf' in patch && patch.duplicateOf === null)
      emitSafely(this.events, this.logger, KEEP_ONE_PAYABLE, written.orderId);
    try {
      if (handOver) this.dispatcher.handOver(history, changeOf(history, written, previousText));
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
export type StatusPlan = ReturnType<typeof planStatus>;

/** What a report does to a record as read: its history row, the record's patch (with `extra`) and the result. */
export function planStatus(
  record: InvoiceRecord,
  known: KnownHistory,
  report: StatusReport,
  extra: Partial<InvoiceRecord>,
  handOverLease: Date | null,
) {
  const decision = decideTransition(record.statusCode, report.code);
  const mismatch = decision.apply ? paymentMismatchOf(report.code, report.invoice, record) : null;
  const createdAt = nextHistoryTime(known.latest);
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
    note: clip(mismatch ?? decision.reason ?? null, 255),
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
    if (statusRow(report.code)?.releasesOrder) patch.openOrderId = null;
    if (mismatch) patch.amountMismatch = true;
  }
  const written: InvoiceRecord =
    Object.keys(patch).length > 0 ? { ...record, ...patch, version: record.version + 1 } : record;
  const result: StatusReportResult = {
    applied: decision.apply,
    previousCode: record.statusCode,
    ...(decision.reason ? { reason: decision.reason } : {}),
    ...(mismatch ? { alert: 'amount_mismatch' as const, reason: mismatch } : {}),
    ...(decision.alert && !mismatch ? { alert: decision.alert } : {}),
    historyId: history.id,
    recordId: record.id,
  };
  return { history, patch, written, result, handOver, previousText: record.statusText };
}

/** Now, or 1 ms after the invoice's latest history row, so history (and notification) order is strict. */
function nextHistoryTime(latest: string | null): Date {
  const now = Date.now();
  const at = latest ? Date.parse(latest) : NaN;
  return new Date(Number.isFinite(at) && at >= now ? at + 1 : now);
}

/** Why a paid report can't mean "order paid" (amount or currency off, or none), or `null`: applied, but flagged. */
function paymentMismatchOf(code: number, invoice: Invoice | undefined, record: InvoiceRecord): string | null {
  if ((code !== InvoiceStatusCode.Authorized && code !== InvoiceStatusCode.Paid) || !invoice) return null;
  const paid = invoice.amounts.paidCents ?? invoice.amounts.grossCents;
  const expected = centsToDecimalString(record.amountCents);
  if (paid === null) return `the service reported status ${code} without an amount; expected ${expected}`;
  if (paid !== record.amountCents)
    return `the service reported ${centsToDecimalString(paid)} paid (status ${code}); the invoice was created for ${expected}`;
  const currency = invoice.currency?.trim().toUpperCase();
  if (currency && currency !== record.currency.toUpperCase())
    return `the service reported currency ${currency}; the invoice was created in ${record.currency}`;
  return null;
}

/** Whether a report would change nothing: the record has its code and the invoice refreshes no field. */
export function reportChangesNothing(record: InvoiceRecord, code: number, invoice?: Invoice): boolean {
  if (record.statusCode !== code) return false;
  const patch = invoice ? snapshotOf(invoice, record) : {};
  return (Object.keys(patch) as Array<keyof InvoiceRecord>).every((key) => patch[key] === record[key]);
}

/** Fields of the record the reported invoice refreshes; absent values never erase what is known. */
function snapshotOf(invoice: Invoice, record: InvoiceRecord): Partial<InvoiceRecord> {
  const patch: Partial<InvoiceRecord> = {};
  const set = <K extends keyof InvoiceRecord>(key: K, value: InvoiceRecord[K] | null | undefined) => {
    if (value !== null && value !== undefined) patch[key] = value;
  };
  // The webhook may name the invoice before the checkout stored its ids (it was matched by referrer).
  if (record.gatewayId === null) set('gatewayId', invoice.id || null);
  if (record.gatewayUuid === null) set('gatewayUuid', invoice.uuid);
  if (record.gatewayInvoiceId === null) set('gatewayInvoiceId', invoice.invoiceId || null);
  for (const key of ['grossCents', 'netCents', 'feesCents', 'discountCents', 'shippingCents'] as const)
    set(key, invoice.amounts[key]);
  // Totals never go backwards: a report read before a refund (a stale lookup) may raise them, never lower them.
  set('paidCents', atLeast(record.paidCents, invoice.amounts.paidCents));
  set('refundedCents', atLeast(record.refundedCents, invoice.refunds.totalCents));
  set('pixPayload', invoice.pix?.payload);
  set('pixImage', invoice.pix?.image);
  set('billetLine', clip(invoice.billet?.line ?? null, 64));
  set('billetBarcode', clip(invoice.billet?.barcode ?? null, 64));
  set('billetUrl', invoice.billet?.url);
  set('paymentUrl', invoice.paymentUrl);
  set('dueDate', invoice.dueDate);
  set('installments', invoice.installments);
  set('cardBrand', clip(invoice.card?.brand ?? null, 32));
  set('cardLast4', clip(invoice.card?.last4 ?? null, 4));
  if (invoice.raw !== undefined) set('rawSnapshot', JSON.stringify(invoice.raw));
  return patch;
}

function atLeast(recorded: number | null, reported: number | null): number | null {
  return reported === null ? null : Math.max(recorded ?? reported, reported);
}

/** The status path, its outbox and the identity check, global so every capability shares one of each. */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService, InvoiceIdentity],
  exports: [StatusChangeDispatcher, InvoiceStatusService, InvoiceIdentity],
})
export class InvoiceStatusModule {}
