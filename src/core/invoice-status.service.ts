import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InvoicePaymentsError } from '../errors/invoice-payments.error';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { dialectOf } from '../persistence/dialect';
import { InvoiceRecord } from '../persistence/invoice.entity';
import type { PaymentStatusChange } from './order-payment.port';
import { changeOf } from './status-change';
import { StatusChangeDispatcher } from './status-dispatcher.service';
import { paymentMismatchOf } from './payment-check';
import { statusRow } from './status-table';
import { decideTransition } from './status-transitions';
import { writeGuarded } from './guarded-status-write';
import { isPostgres, runInTransaction } from './transaction';
import { clip } from './text-bounds';
import { STATUS_REPORT_SOURCES, type StatusReportSource } from './status-sources';

/** One report of an invoice's status, from wherever it came. */
export interface StatusReport {
  /** `InvoiceRecord.id` (the module's local invoice id). */
  recordId: string;
  /** `status.code` as reported (spec §3); unlisted codes are recorded, never applied. */
  code: number;
  /** `status.text` as reported; defaults to `invoice.status.text`. */
  text?: string | null;
  source: StatusReportSource;
  /** The invoice the report came with: its amounts, PIX, bank slip, card and due date refresh the record. */
  invoice?: Invoice;
}

/** What {@link InvoiceStatusService.applyReport} did. */
export interface StatusReportResult {
  /** `true` when the record moved to the reported code. */
  applied: boolean;
  /** The record's code before the report (`null`: no status yet). */
  previousCode: number | null;
  /** Why the report was not applied, or why it was flagged. */
  reason?: string;
  alert?: 'paid_after_cancel' | 'amount_mismatch';
  /** The status history row written for this report. */
  historyId: string;
  /** The record the report was applied to. */
  recordId: string;
}

/** What the caller knows of a record's status history: its latest row's time and its applied changes not yet delivered. */
export interface KnownHistory {
  latest: string | null;
  openChanges: number;
}

/** A record that has no status history yet. */
export const NO_HISTORY: KnownHistory = { latest: null, openChanges: 0 };

/** What applying one report writes, and what it then reports. */
interface StatusPlan {
  history: InvoiceStatusHistory;
  patch: Partial<InvoiceRecord>;
  written: InvoiceRecord;
  result: StatusReportResult;
  handOver: boolean;
  previousText: string | null;
}

/** The record a status report names does not exist (the checkout's own 404 is `InvoiceRecordNotFoundError`). */
export class ReportedRecordNotFoundError extends InvoicePaymentsError {
  constructor(readonly recordId: string) {
    super('reported_record_not_found', `recordId: no invoice record ${recordId}`, { recordId });
  }
}

/** A status report the module built wrong: `field` names what is wrong with it. */
export class InvalidStatusReportError extends InvoicePaymentsError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super('invalid_status_report', `${field}: ${problem}`, { field });
  }
}

/**
 * THE one path that changes an invoice record's status. Checkout, webhooks and the reconciliation sweep all report
 * here; the transition table (`status-transitions.ts`) decides, every report is kept in the status history, and each
 * applied change is handed to the {@link StatusChangeDispatcher} to reach the host's port and the event bus once.
 *
 * Call it after your own transaction has committed: it opens its own.
 */
@Injectable()
export class InvoiceStatusService {
  private readonly logger = new Logger(InvoiceStatusService.name);
  /** Applied changes waiting for their transaction's commit: delivered directly, or by a kick of the dispatcher. */
  private readonly handOvers = new WeakMap<
    StatusReportResult,
    { row: InvoiceStatusHistory; change: PaymentStatusChange }
  >();
  private readonly kicks = new WeakSet<StatusReportResult>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatcher: StatusChangeDispatcher,
  ) {}

  /**
   * Records a status report and applies it when the transition table allows: in one transaction with the record's
   * row locked, reads the current code, decides, writes a history row (applied or not) and updates the record.
   * After commit, an applied change is dispatched to the host. Throws {@link ReportedRecordNotFoundError} for an
   * unknown `recordId` and {@link InvalidStatusReportError} for a malformed report; nothing is written then.
   */
  async applyReport(report: StatusReport): Promise<StatusReportResult> {
    assertReport(report);
    return (await this.applyLocked(report)).result;
  }

  /** {@link applyWithin} in a transaction of its own, the change handed on once it committed. */
  private async applyLocked(report: StatusReport, alsoSet: Partial<InvoiceRecord> = {}) {
    const applied = await runInTransaction(this.dataSource, (em) => this.applyWithin(em, report, alsoSet));
    this.afterCommit(applied.result);
    return applied;
  }

  /**
   * {@link applyReport} inside the caller's open transaction, so a caller that writes the record too (the checkout
   * settling a created invoice) makes one transaction of it; `alsoSet` are more fields of the record written by the
   * same UPDATE. Resolves with the result and the record as this report left it (the locked row with what was
   * written on it), so the caller need not read it back. Call {@link afterCommit} with the result once the
   * transaction has committed (never before: the host must not hear of a change that may still roll back).
   */
  async applyWithin(
    em: EntityManager,
    report: StatusReport,
    alsoSet: Partial<InvoiceRecord> = {},
  ): Promise<{ result: StatusReportResult; record: InvoiceRecord }> {
    assertReport(report);
    const { record, known } = await this.lockRecord(em, report.recordId);
    const plan = this.plan(record, known, report, alsoSet);
    await em.getRepository(InvoiceStatusHistory).insert(plan.history);
    if (Object.keys(plan.patch).length > 0)
      await em.getRepository(InvoiceRecord).update({ id: record.id }, plan.patch);
    this.remember(plan);
    return { result: plan.result, record: plan.written };
  }

  /**
   * {@link applyReport} for a record the caller holds exactly as last written (at its `version`) and whose status
   * history it knows (`known`), without a lock, a read or a transaction: on PostgreSQL one statement writes the
   * history row and updates the record, guarded by that version and that history. Resolves `null` when it wrote
   * nothing: the guard failed (the record or its history was written since), the report would not update the
   * record, or the database is SQLite; then use {@link applyReport}, which locks and reads. On success call
   * {@link afterCommit} with the result, as after {@link applyWithin}.
   */
  async applyKnown(
    record: InvoiceRecord,
    known: KnownHistory,
    report: StatusReport,
    alsoSet: Partial<InvoiceRecord> = {},
  ): Promise<{ result: StatusReportResult; record: InvoiceRecord } | null> {
    assertReport(report);
    if (!isPostgres(this.dataSource) || record.id !== report.recordId) return null;
    const plan = this.plan(record, known, report, alsoSet);
    if (Object.keys(plan.patch).length === 0) return null;
    if (!(await writeGuarded(this.dataSource, plan.history, plan.patch, record.version, known))) return null;
    this.remember(plan);
    return { result: plan.result, record: plan.written };
  }

  /**
   * Applies a report to a record the caller read, and hands the change on: in one guarded statement when the caller
   * knows the record's history ({@link applyKnown}), else, or when that wrote nothing, in a transaction with the
   * record locked ({@link applyWithin}). Resolves with the result and the record as written.
   */
  async applyTo(
    record: InvoiceRecord,
    known: KnownHistory | null,
    report: StatusReport,
    alsoSet: Partial<InvoiceRecord> = {},
  ): Promise<{ result: StatusReportResult; record: InvoiceRecord }> {
    const done = known ? await this.applyKnown(record, known, report, alsoSet) : null;
    if (!done) return this.applyLocked(report, alsoSet);
    this.afterCommit(done.result);
    return done;
  }

  /**
   * The status history of these records as {@link applyKnown} needs it (PostgreSQL: elsewhere `applyKnown` writes
   * nothing, and this reads nothing), in one query. Records without history are {@link NO_HISTORY}.
   */
  async knownHistories(recordIds: string[]): Promise<Map<string, KnownHistory>> {
    if (recordIds.length === 0 || !isPostgres(this.dataSource)) return new Map();
    return historiesOf(this.dataSource.manager, recordIds);
  }

  /**
   * What a report does to a record as read (its history as `known`): the transition table decides; the history row
   * (applied or not) and the record's patch to write; the record as it will then be.
   */
  private plan(
    record: InvoiceRecord,
    known: KnownHistory,
    report: StatusReport,
    alsoSet: Partial<InvoiceRecord>,
  ): StatusPlan {
    const decision = decideTransition(record.statusCode, report.code);
    const mismatch = decision.apply ? paymentMismatchOf(report.code, report.invoice, record) : null;
    const createdAt = nextHistoryTime(known.latest);
    const text = report.text ?? report.invoice?.status.text ?? null;
    // With no earlier change of the invoice still to deliver, the new one is written held by this instance and
    // handed to the dispatcher after commit: delivered without reading it back.
    // PostgreSQL only: on SQLite a host port that opens its own transaction at once could meet one of ours on the
    // one shared connection, so there the dispatcher reads the change back first, outside our transaction.
    const handOver =
      decision.apply && known.openChanges === 0 && isPostgres(this.dataSource) && this.dispatcher.accepting;
    // A plain assignment: the repository's `create` walks the metadata, and every column is given here.
    const history: InvoiceStatusHistory = Object.assign(new InvoiceStatusHistory(), {
      id: randomUUID(),
      invoiceRecordId: record.id,
      fromCode: record.statusCode,
      toCode: report.code,
      statusText: clip(text, 128),
      source: report.source,
      applied: decision.apply,
      note: clip(mismatch ?? decision.reason ?? null, 255),
      alert: mismatch ? 'amount_mismatch' : (decision.alert ?? null),
      // A refused report has nothing to notify: it is closed at once and stays out of the outbox scan.
      notifiedAt: decision.apply ? null : createdAt,
      notifyAttempts: 0,
      notifyError: null,
      notifyLockedUntil: handOver ? this.dispatcher.leaseUntil() : null,
      createdAt,
    });

    const unchanged = record.statusCode === report.code;
    // A refused report never touches the record: a stale payload must not overwrite fresher data.
    const patch: Partial<InvoiceRecord> = { ...alsoSet };
    if (decision.apply || unchanged) {
      Object.assign(patch, report.invoice ? snapshotOf(report.invoice, record) : {}, {
        updatedAt: createdAt,
      });
      if (decision.apply) {
        patch.statusCode = report.code;
        patch.statusText = clip(text, 128);
        if (statusRow(report.code)?.releasesOrder) patch.openOrderId = null;
        if (mismatch) patch.amountMismatch = true;
      }
    }
    // Every UPDATE counts the row's version up (TypeORM's, and the guarded statement).
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

  /** Keeps a written plan's change for {@link afterCommit}: handed over, or a kick of the dispatcher. */
  private remember(plan: StatusPlan): void {
    if (plan.handOver) {
      this.handOvers.set(plan.result, {
        row: plan.history,
        change: changeOf(plan.history, plan.written, plan.previousText),
      });
    } else if (plan.result.applied) {
      this.kicks.add(plan.result);
    }
  }

  /** Hands an applied change to the dispatcher; call it once the transaction of {@link applyWithin} committed. */
  afterCommit(result: StatusReportResult): void {
    const handOver = this.handOvers.get(result);
    if (handOver) {
      this.handOvers.delete(result);
      this.dispatcher.handOver(handOver.row, handOver.change);
    } else if (this.kicks.delete(result)) {
      this.dispatcher.kick(result.recordId);
    } else if (!result.applied) {
      this.logger.debug(`invoice ${result.recordId}: ${result.reason ?? 'not applied'}`);
    }
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
    const lock = dialectOf(this.dataSource).rowLock;
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

/** Now, or 1 ms after the invoice's latest history row, so history (and notification) order is strict. */
function nextHistoryTime(latest: string | null): Date {
  const now = Date.now();
  const at = latest ? Date.parse(latest) : NaN;
  return new Date(Number.isFinite(at) && at >= now ? at + 1 : now);
}

/**
 * Whether a report would change nothing: the record already has its code and the invoice it came with refreshes no
 * field. Such a report needs no transaction (the webhook batch records it on the delivery's inbox row alone, as the
 * reconciliation writes nothing for a round that found nothing new).
 */
export function reportChangesNothing(record: InvoiceRecord, code: number, invoice?: Invoice): boolean {
  if (record.statusCode !== code) return false;
  if (!invoice) return true;
  const patch = snapshotOf(invoice, record);
  return (Object.keys(patch) as Array<keyof InvoiceRecord>).every((key) => patch[key] === record[key]);
}

function assertReport(report: StatusReport): void {
  if (typeof report?.recordId !== 'string' || report.recordId.length === 0) {
    throw new InvalidStatusReportError('recordId', 'must be a non-empty string');
  }
  if (!Number.isSafeInteger(report.code))
    throw new InvalidStatusReportError('code', `must be an integer, got ${String(report.code)}`);
  if (!(STATUS_REPORT_SOURCES as readonly unknown[]).includes(report.source))
    throw new InvalidStatusReportError('source', `must be one of ${STATUS_REPORT_SOURCES.join(', ')}`);
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
  set('grossCents', invoice.amounts.grossCents);
  set('netCents', invoice.amounts.netCents);
  set('feesCents', invoice.amounts.feesCents);
  set('discountCents', invoice.amounts.discountCents);
  set('shippingCents', invoice.amounts.shippingCents);
  // Totals never go backwards: money paid or refunded stays so. A report read before a refund (a webhook overtaken
  // by the refund's own answer, a stale lookup) may raise them, never lower them; the amounts themselves were
  // bounded when read (`serviceAmountToCents`).
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

/** The reported total, unless it is below what is recorded: then the recorded one stays. */
function atLeast(recorded: number | null, reported: number | null): number | null {
  if (reported === null) return null;
  return recorded !== null && recorded > reported ? recorded : reported;
}
