import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory, StatusChangeSource } from '../persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { StatusChangeDispatcher } from './status-dispatcher.service';
import { paymentMismatchOf } from './payment-check';
import { statusRow } from './status-table';
import { decideTransition } from './status-transitions';
import { isPostgres, runInTransaction } from './transaction';

const SOURCES: readonly StatusChangeSource[] = ['create', 'operation', 'webhook', 'sweep', 'provider'];

/** One report of an invoice's status, from wherever it came. */
export interface StatusReport {
  /** `InvoiceRecord.id` (the module's local invoice id). */
  recordId: string;
  /** `status.code` as reported (spec §3); unlisted codes are recorded, never applied. */
  code: number;
  /** `status.text` as reported; defaults to `invoice.status.text`. */
  text?: string | null;
  source: StatusChangeSource;
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
}

/** The record a status report names does not exist (the checkout's own 404 is `InvoiceRecordNotFoundError`). */
export class ReportedRecordNotFoundError extends Error {
  constructor(readonly recordId: string) {
    super(`recordId: no invoice record ${recordId}`);
    this.name = 'ReportedRecordNotFoundError';
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

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatcher: StatusChangeDispatcher,
  ) {}

  /**
   * Records a status report and applies it when the transition table allows: in one transaction with the record's
   * row locked, reads the current code, decides, writes a history row (applied or not) and updates the record.
   * After commit, an applied change is dispatched to the host. Throws {@link ReportedRecordNotFoundError} for an
   * unknown `recordId` and a field-named `Error` for a malformed report; nothing is written then.
   */
  async applyReport(report: StatusReport): Promise<StatusReportResult> {
    assertReport(report);
    const result = await runInTransaction(this.dataSource, (em) => this.applyLocked(em, report));
    if (result.applied) this.dispatcher.kick(report.recordId);
    else this.logger.debug(`invoice ${report.recordId}: ${result.reason ?? 'not applied'}`);
    return result;
  }

  private async applyLocked(em: EntityManager, report: StatusReport): Promise<StatusReportResult> {
    const qb = em
      .getRepository(InvoiceRecord)
      .createQueryBuilder('r')
      .where('r.id = :id', { id: report.recordId });
    // SQLite has no row locks; its writers are serialized by runInTransaction and the database itself.
    if (isPostgres(this.dataSource)) qb.setLock('pessimistic_write');
    const record = await qb.getOne();
    if (!record) throw new ReportedRecordNotFoundError(report.recordId);

    const decision = decideTransition(record.statusCode, report.code);
    const mismatch = decision.apply ? paymentMismatchOf(report.code, report.invoice, record) : null;
    const createdAt = await this.nextHistoryTime(em, record.id);
    const text = report.text ?? report.invoice?.status.text ?? null;
    const history = em.getRepository(InvoiceStatusHistory).create({
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
      createdAt,
    });
    await em.getRepository(InvoiceStatusHistory).insert(history);

    const unchanged = record.statusCode === report.code;
    // A refused report never touches the record: a stale payload must not overwrite fresher data.
    if (decision.apply || unchanged) {
      const patch: Partial<InvoiceRecord> = {
        ...(report.invoice ? snapshotOf(report.invoice, record) : {}),
        updatedAt: createdAt,
      };
      if (decision.apply) {
        patch.statusCode = report.code;
        patch.statusText = clip(text, 128);
        if (statusRow(report.code)?.releasesOrder) patch.openOrderId = null;
        if (mismatch) patch.amountMismatch = true;
      }
      await em.getRepository(InvoiceRecord).update({ id: record.id }, patch);
    }
    return {
      applied: decision.apply,
      previousCode: record.statusCode,
      ...(decision.reason ? { reason: decision.reason } : {}),
      ...(mismatch ? { alert: 'amount_mismatch' as const, reason: mismatch } : {}),
      ...(decision.alert && !mismatch ? { alert: decision.alert } : {}),
      historyId: history.id,
    };
  }

  /** Now, or 1 ms after the invoice's latest history row, so history (and notification) order is strict. */
  private async nextHistoryTime(em: EntityManager, recordId: string): Promise<Date> {
    const row = await em
      .getRepository(InvoiceStatusHistory)
      .createQueryBuilder('h')
      .select('MAX(h.createdAt)', 'latest')
      .where('h.invoiceRecordId = :recordId', { recordId })
      .getRawOne<{ latest: string | null }>();
    const now = Date.now();
    const latest = row?.latest ? Date.parse(row.latest) : NaN;
    return new Date(Number.isFinite(latest) && latest >= now ? latest + 1 : now);
  }
}

function assertReport(report: StatusReport): void {
  if (typeof report?.recordId !== 'string' || report.recordId.length === 0) {
    throw new Error('recordId: must be a non-empty string');
  }
  if (!Number.isSafeInteger(report.code))
    throw new Error(`code: must be an integer, got ${String(report.code)}`);
  if (!SOURCES.includes(report.source)) throw new Error(`source: must be one of ${SOURCES.join(', ')}`);
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

function clip(value: string | null, max: number): string | null {
  return value === null ? null : value.slice(0, max);
}
