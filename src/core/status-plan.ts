import { randomUUID } from 'node:crypto';
import type { DataSource, EntityMetadata } from 'typeorm';
import { InvoicePaymentsError } from '../errors/invoice-payments.error';
import { centsToDecimalString } from '../gateway/money';
import { InvoiceStatusCode } from '../gateway/status';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { statusRow, decideTransition, STATUS_REPORT_SOURCES, type StatusReportSource } from './status-table';
import { clip } from './text-bounds';
import { queryReturning } from './typeorm-compat';

/** One report of an invoice's status, from wherever it came. */
export interface StatusReport {
  recordId: string;
  /** As reported (spec §3); unlisted codes are recorded, never applied. */
  code: number;
  /** `status.text` as reported; defaults to `invoice.status.text`. */
  text?: string | null;
  source: StatusReportSource;
  /** The invoice the report came with: its amounts, PIX, bank slip, card and due date refresh the record. */
  invoice?: Invoice;
}

/** What applying a report did; `reason`: why it was not applied, or why it was flagged. */
export interface StatusReportResult {
  applied: boolean;
  previousCode: number | null;
  reason?: string;
  alert?: 'paid_after_cancel' | 'amount_mismatch';
  historyId: string;
  recordId: string;
}

/** A record's status history as its writer knows it: its latest row's time, its applied changes not yet delivered. */
export interface KnownHistory {
  latest: string | null;
  openChanges: number;
}

export const NO_HISTORY: KnownHistory = { latest: null, openChanges: 0 };

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
  const text = report.text ?? report.invoice?.status.text ?? null;
  // With no earlier change still to deliver, the new one is written leased to this instance and handed over.
  const handOver = decision.apply && known.openChanges === 0 && handOverLease !== null;
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
    notifyLockedUntil: handOver ? handOverLease : null,
    createdAt,
  });

  const unchanged = record.statusCode === report.code;
  // A refused report never touches the record: a stale payload must not overwrite fresher data.
  const patch: Partial<InvoiceRecord> = { ...extra };
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

/** Whether a report would change nothing: the record has its code and the invoice refreshes no field. */
export function reportChangesNothing(record: InvoiceRecord, code: number, invoice?: Invoice): boolean {
  if (record.statusCode !== code) return false;
  if (!invoice) return true;
  const patch = snapshotOf(invoice, record);
  return (Object.keys(patch) as Array<keyof InvoiceRecord>).every((key) => patch[key] === record[key]);
}

export function assertReport(report: StatusReport): void {
  if (typeof report?.recordId !== 'string' || report.recordId.length === 0)
    throw new InvalidStatusReportError('recordId', 'must be a non-empty string');
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

const MONEY_TAKEN: readonly number[] = [InvoiceStatusCode.Authorized, InvoiceStatusCode.Paid];

/** Why a paid report can't mean "order paid" (amount or currency off, or none), or `null`: applied, but flagged. */
function paymentMismatchOf(code: number, invoice: Invoice | undefined, record: InvoiceRecord): string | null {
  if (!MONEY_TAKEN.includes(code) || !invoice) return null;
  const paid = invoice.amounts.paidCents ?? invoice.amounts.grossCents;
  const expected = centsToDecimalString(record.amountCents);
  if (paid === null) return `the service reported status ${code} without an amount; expected ${expected}`;
  if (paid !== record.amountCents) {
    return `the service reported ${centsToDecimalString(paid)} paid (status ${code}); the invoice was created for ${expected}`;
  }
  const currency = invoice.currency?.trim().toUpperCase();
  if (currency && currency !== record.currency.toUpperCase()) {
    return `the service reported currency ${currency}; the invoice was created in ${record.currency}`;
  }
  return null;
}

type ColumnMetadata = EntityMetadata['columns'][number];

/** History row and record patch in one CTE, written (`true`) only if the record is at `version` and `guard` holds. */
// Every history writer updates the record, so its version moves with either.
export async function writeGuarded(
  dataSource: DataSource,
  history: InvoiceStatusHistory,
  patch: Partial<InvoiceRecord>,
  version: number,
  guard: KnownHistory,
): Promise<boolean> {
  const statement = statementFor(dataSource, Object.keys(patch));
  const prepare = (column: ColumnMetadata, value: unknown): unknown =>
    dataSource.driver.preparePersistentValue(value, column);
  const params: unknown[] = [
    history.invoiceRecordId,
    version,
    ...statement.patchColumns.map((c) => prepare(c, patch[c.propertyName as keyof InvoiceRecord])),
    guard.latest,
    guard.openChanges,
    ...statement.historyColumns.map((c) => prepare(c, c.getEntityValue(history))),
  ];
  return (await queryReturning(dataSource.manager, statement.sql, params)).length === 1;
}

// PostgreSQL types a bare parameter in a SELECT list as text; never VARCHAR(n), which would truncate, not refuse.
const CASTABLE = ['text', 'integer', 'bigint', 'boolean'];

/** `$1` the record's id, `$2` its version, the patch's values, the guard's latest and open count, the history's. */
function statementFor(dataSource: DataSource, properties: string[]) {
  const record = dataSource.getMetadata(InvoiceRecord);
  const rows = dataSource.getMetadata(InvoiceStatusHistory);
  let n = 2;
  const patchColumns = properties.map((property) => {
    const column = record.findColumnWithPropertyName(property);
    if (!column) throw new Error(`writeGuarded: InvoiceRecord has no column for ${property}`);
    return column;
  });
  const sets = patchColumns.map((c) => `"${c.databaseName}" = $${++n}`);
  const versionColumn = `"${record.versionColumn?.databaseName ?? 'version'}"`;
  sets.push(`${versionColumn} = ${versionColumn} + 1`);
  const [latest, open] = [`$${++n}`, `$${++n}`];
  const table = `"${rows.tableName}"`;
  const historyColumns = rows.columns;
  const names = historyColumns.map((c) => `"${c.databaseName}"`).join(', ');
  const values = historyColumns.map((c) => {
    const cast = String(c.type) === 'varchar' ? 'text' : String(c.type);
    if (!CASTABLE.includes(cast))
      throw new Error(`writeGuarded: no cast for column ${c.databaseName} (${cast})`);
    return `CAST($${++n} AS ${cast.toUpperCase()})`;
  });
  const sql =
    `WITH upd AS (UPDATE "${record.tableName}" SET ${sets.join(', ')} ` +
    `WHERE "id" = $1 AND ${versionColumn} = $2 ` +
    `AND (SELECT MAX(h."created_at") FROM ${table} h WHERE h."invoice_record_id" = $1) ` +
    `IS NOT DISTINCT FROM CAST(${latest} AS TEXT) ` +
    `AND (SELECT COUNT(*) FROM ${table} h WHERE h."invoice_record_id" = $1 ` +
    `AND h."applied" AND h."notified_at" IS NULL) = CAST(${open} AS INTEGER) RETURNING "id") ` +
    `INSERT INTO ${table} (${names}) SELECT ${values.join(', ')} FROM upd RETURNING "id"`;
  return { sql, patchColumns, historyColumns };
}
