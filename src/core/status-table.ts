import { randomUUID } from 'node:crypto';
import { centsToDecimalString } from '../gateway/money';
import {
  INVOICE_STATUS_NAMES,
  InvoiceStatusCode,
  isKnownStatusCode,
  type KnownInvoiceStatusCode,
} from '../gateway/status';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { CreationMove } from './creation-move';
import { clip } from './text-bounds';

/** The status of a payment session as the module's provider reports it (Medusa's provider contract, on every host). */
export type PaymentSessionStatus =
  'pending' | 'requires_more' | 'authorized' | 'captured' | 'canceled' | 'error';

/** Payment status of a Medusa-style order. */
export type OrderPaymentStatus =
  | 'not_paid'
  | 'awaiting'
  | 'authorized'
  | 'captured'
  | 'partially_refunded'
  | 'refunded'
  | 'canceled'
  | 'requires_action';

export interface StatusRow {
  code: KnownInvoiceStatusCode;
  session: PaymentSessionStatus;
  order: OrderPaymentStatus;
  /** The attempt can never be paid (canceled, denied, error): the order may start another. */
  releasesOrder: boolean;
}

/** Each code of spec §3 → the payment session's status → the order's; unlisted codes (11, 13, 14) never apply. */
export const STATUS_TABLE: Readonly<Record<KnownInvoiceStatusCode, StatusRow>> = {
  1: { code: 1, session: 'pending', order: 'awaiting', releasesOrder: false },
  2: { code: 2, session: 'pending', order: 'awaiting', releasesOrder: false },
  3: { code: 3, session: 'pending', order: 'awaiting', releasesOrder: false },
  4: { code: 4, session: 'authorized', order: 'authorized', releasesOrder: false },
  5: { code: 5, session: 'captured', order: 'captured', releasesOrder: false },
  6: { code: 6, session: 'canceled', order: 'canceled', releasesOrder: true },
  // The refund was asked for and the money has not gone back yet: the order is still paid.
  7: { code: 7, session: 'captured', order: 'captured', releasesOrder: false },
  8: { code: 8, session: 'captured', order: 'partially_refunded', releasesOrder: false },
  9: { code: 9, session: 'captured', order: 'refunded', releasesOrder: false },
  // A dispute needs a person: the money may be taken back.
  10: { code: 10, session: 'captured', order: 'requires_action', releasesOrder: false },
  12: { code: 12, session: 'error', order: 'not_paid', releasesOrder: true },
  // Overdue: still payable once the due date moves (§4.3), so the customer has more to do.
  15: { code: 15, session: 'requires_more', order: 'awaiting', releasesOrder: false },
  16: { code: 16, session: 'error', order: 'not_paid', releasesOrder: true },
};

/** The row of a code, or `null` for a code the spec does not list (never applied). */
export function statusRow(code: number | null | undefined): StatusRow | null {
  if (code === null || code === undefined) return null;
  return Object.prototype.hasOwnProperty.call(STATUS_TABLE, code)
    ? STATUS_TABLE[code as KnownInvoiceStatusCode]
    : null;
}

/** What reported a status: creation, an operation's answer, a webhook, a reconciliation sweep or a provider read. */
export const STATUS_REPORT_SOURCES = ['create', 'operation', 'webhook', 'sweep', 'provider'] as const;

/** One of {@link STATUS_REPORT_SOURCES}. */
export type StatusReportSource = (typeof STATUS_REPORT_SOURCES)[number];

/** A history row's source: a report, or `admin` (a resolution noted by a person, never dispatched). */
export type StatusChangeSource = StatusReportSource | 'admin';

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

/** How `InvoiceStatusService.apply` may write a report. */
export interface ApplyOptions {
  /** The record and history as read: one guarded statement writes if both are still so, else the locked path. */
  record?: InvoiceRecord;
  known?: KnownHistory;
  /** Written by the same write, onto the record as written only ({@link creationMoveRefusal}); else nothing is. */
  creation?: CreationMove;
}

/** What `InvoiceStatusService.apply` did, and the record as it left it. */
export interface AppliedStatus {
  result: StatusReportResult;
  record: InvoiceRecord;
}

/**
 * Reports arrive late, twice and out of order, so an invoice only moves to a later stage and ends on the furthest
 * legal state whatever the order. Paid outranks every unpaid ending; a step back is recorded, never applied
 * (docs/webhooks.md has the table): awaiting payment, overdue, processing, scheduled, authorized, denied, error,
 * canceled, paid, awaiting refund, partially refunded, contested, refunded.
 */
export const STATUS_STAGES: readonly KnownInvoiceStatusCode[] = [1, 15, 2, 3, 4, 12, 16, 6, 5, 7, 8, 10, 9];

/** Stage of a listed code (its index in {@link STATUS_STAGES}), or `null` for a code the spec does not list. */
export function statusStage(code: number | null | undefined): number | null {
  const stage = STATUS_STAGES.indexOf(code as KnownInvoiceStatusCode);
  return stage < 0 ? null : stage;
}

function label(code: number): string {
  return isKnownStatusCode(code) ? `${code} ${INVOICE_STATUS_NAMES[code].toLowerCase()}` : String(code);
}

/** Whether an invoice at `from` (`null`: no status yet) moves to `to`, why not; paid after an unpaid ending alerts. */
export function decideTransition(
  from: number | null,
  to: number,
): { apply: boolean; reason?: string; alert?: 'paid_after_cancel' } {
  const toStage = statusStage(to);
  if (toStage === null) return { apply: false, reason: `unknown status code ${to}: recorded, not applied` };
  const fromStage = statusStage(from);
  if (from === null || fromStage === null) return { apply: true };
  if (from === to) return { apply: false, reason: `unchanged: already ${label(to)}` };
  if (toStage < fromStage) {
    return { apply: false, reason: `backwards: ${label(from)} → ${label(to)} not applied` };
  }
  if (to === InvoiceStatusCode.Paid && statusRow(from)?.releasesOrder) {
    return {
      apply: true,
      alert: 'paid_after_cancel',
      reason: `paid after the invoice was closed (${label(from)}): the money must go back`,
    };
  }
  return { apply: true };
}

/** A reason {@link decideTransition} wrote as a stable code the admin page words in the reader's language. */
export function transitionNoteCode(note: string | null) {
  if (!note) return null;
  if (note.startsWith('unchanged:')) return 'unchanged';
  if (note.startsWith('backwards:')) return 'backwards';
  if (note.startsWith('unknown status code')) return 'unknown_code';
  if (note.startsWith('paid after the invoice was closed')) return 'paid_after_close';
  return null;
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
