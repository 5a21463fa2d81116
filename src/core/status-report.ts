import {
  InvoiceStatusCode,
  STATUS_STAGES,
  statusIs,
  statusRow,
  type StatusReportSource,
} from '../domain/status-table';
import { centsToDecimalString } from '../gateway/money';
import { clip } from '../domain/text-and-days';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { CreationMove } from './invoice-record.store';

// What a status report is, what its invoice does to a record beside its status, and the transition it makes by the
// status table's stages, in codes and in words.

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

/** What applying a report did; `reason`: in words, why it was not applied, or why it was flagged. */
export interface StatusReportResult {
  applied: boolean;
  previousCode: number | null;
  /** The transition table's verdict on `previousCode` → the reported code. */
  verdict: TransitionVerdict;
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
  /** Written by the same write if the record allows it ({@link creationMoveRefusal}); else it throws, nothing written. */
  creation?: CreationMove;
}

/** What `InvoiceStatusService.apply` did, and the record as it left it. */
export interface AppliedStatus {
  result: StatusReportResult;
  record: InvoiceRecord;
}

// What a status report's invoice does to a record beside its status: the fields it refreshes, and the amounts that
// must not change silently (a payment of another amount, a captured invoice's total or payment reported anew).

/** How the status history's note of a captured invoice's amount reported anew begins (it raises one alert). */
const CAPTURED_AMOUNT_NOTE = 'captured amount reported anew';

/** Why a paid report can't mean "order paid" (amount or currency off, or none), or `null`: applied, but flagged. */
export function paymentMismatchOf(
  code: number,
  invoice: Invoice | undefined,
  record: InvoiceRecord,
): string | null {
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

/** Whether the record's invoice was captured (paid, and what follows: refunds, a dispute). */
export function captured(record: InvoiceRecord | null): boolean {
  return statusRow(record?.statusCode)?.session === 'captured';
}

/**
 * Why a report about a captured invoice cannot refresh its amounts, or `null`: the service reports a total (gross)
 * other than the one stored, or more paid than stored. The order was settled on the stored amounts, so they are
 * kept, the order is left as it is, and a person is told. Less paid is no news: a refund may explain it, and refunds
 * are tracked on their own.
 */
export function capturedAmountChange(record: InvoiceRecord, invoice: Invoice | undefined): string | null {
  if (!invoice || !captured(record)) return null;
  const money = centsToDecimalString;
  const changes: string[] = [];
  const { grossCents, paidCents } = invoice.amounts;
  if (grossCents !== null && record.grossCents !== null && grossCents !== record.grossCents)
    changes.push(`total ${money(grossCents)} (stored ${money(record.grossCents)})`);
  if (paidCents !== null && record.paidCents !== null && paidCents > record.paidCents)
    changes.push(`paid ${money(paidCents)} (stored ${money(record.paidCents)})`);
  if (changes.length === 0) return null;
  const now = changes.join(' and ');
  return clip(`${CAPTURED_AMOUNT_NOTE}: ${now}; the stored amounts and the order are kept`, 255);
}

/** Whether a report would change nothing: the record has its code, the invoice refreshes no field, no amount moved. */
export function reportChangesNothing(record: InvoiceRecord, code: number, invoice?: Invoice): boolean {
  if (record.statusCode !== code) return false;
  if (capturedAmountChange(record, invoice) !== null) return false;
  const patch = invoice ? snapshotOf(invoice, record) : {};
  return (Object.keys(patch) as Array<keyof InvoiceRecord>).every((key) => patch[key] === record[key]);
}

/** Fields of the record the reported invoice refreshes; absent values never erase what is known. */
export function snapshotOf(invoice: Invoice, record: InvoiceRecord): Partial<InvoiceRecord> {
  const patch: Partial<InvoiceRecord> = {};
  const set = <K extends keyof InvoiceRecord>(key: K, value: InvoiceRecord[K] | null | undefined) => {
    if (value !== null && value !== undefined) patch[key] = value;
  };
  // The webhook may name the invoice before the checkout stored its ids (it was matched by referrer).
  if (record.gatewayId === null) set('gatewayId', invoice.id || null);
  if (record.gatewayUuid === null) set('gatewayUuid', invoice.uuid);
  if (record.gatewayInvoiceId === null) set('gatewayInvoiceId', invoice.invoiceId || null);
  for (const key of ['netCents', 'feesCents', 'discountCents', 'shippingCents'] as const)
    set(key, invoice.amounts[key]);
  // A captured invoice's total and payment, once known, are what the order was settled on ({@link capturedAmountChange}).
  const settled = captured(record);
  set('grossCents', settled ? (record.grossCents ?? invoice.amounts.grossCents) : invoice.amounts.grossCents);
  // Totals never go backwards: a report read before a refund (a stale lookup) may raise them, never lower them.
  const paid = atLeast(record.paidCents, invoice.amounts.paidCents);
  set('paidCents', settled ? (record.paidCents ?? paid) : paid);
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

/**
 * What a report does to an invoice: `apply` (it moves), `paid_after_close` (it moves, and the money of an invoice
 * that could no longer be paid must go back), or it is recorded and refused: `unchanged` (already so), `backwards`
 * (an earlier stage) or `unknown_code` (a code the spec does not list). Stable: the admin page words each one.
 */
export type TransitionVerdict = 'apply' | 'paid_after_close' | 'unchanged' | 'backwards' | 'unknown_code';

/** A decided transition, in codes ({@link transitionText} words it for people). */
export interface Transition {
  /** The invoice's code before (`null`: no status yet). */
  from: number | null;
  to: number;
  verdict: TransitionVerdict;
  /** The invoice moves to `to`. */
  apply: boolean;
  /** The alert the move raises (`PaymentStatusChange.alert`). */
  alert?: 'paid_after_cancel';
}

/** Whether an invoice at `from` (`null`: no status yet) moves to `to`, by the stages of the status table. */
export function decideTransition(from: number | null, to: number): Transition {
  const toRow = statusRow(to);
  const fromRow = statusRow(from);
  if (!toRow) return { from, to, verdict: 'unknown_code', apply: false };
  if (from === null || !fromRow) return { from, to, verdict: 'apply', apply: true };
  if (from === to) return { from, to, verdict: 'unchanged', apply: false };
  if (toRow.stage < fromRow.stage) return { from, to, verdict: 'backwards', apply: false };
  if (to === InvoiceStatusCode.Paid && statusIs(from, 'releasesOrder')) {
    return { from, to, verdict: 'paid_after_close', apply: true, alert: 'paid_after_cancel' };
  }
  return { from, to, verdict: 'apply', apply: true };
}

/** Whether a report could still change a record at `code` (a refund or late money reaches a paid or canceled one). */
export function openToReports(code: number | null): boolean {
  return STATUS_STAGES.some((to) => decideTransition(code, to).apply);
}

/**
 * The transition a status history row records, decided again from the two codes it stores (the history keeps codes,
 * never a sentence to read back); `null` for a row that is no report (a person's resolution).
 */
export function transitionOfRow(row: { fromCode: number | null; toCode: number | null }): Transition | null {
  return row.toCode === null ? null : decideTransition(row.fromCode, row.toCode);
}

function atLeast(recorded: number | null, reported: number | null): number | null {
  return reported === null ? null : Math.max(recorded ?? reported, reported);
}

function label(code: number): string {
  const row = statusRow(code);
  return row ? `${code} ${row.name.toLowerCase()}` : String(code);
}

/** A transition in words (logs, the inbox's outcome, an alert's message); `null` for a plain move. */
export function transitionText(transition: Transition | null): string | null {
  if (!transition) return null;
  const { from, to } = transition;
  switch (transition.verdict) {
    case 'unknown_code':
      return `unknown status code ${to}: recorded, not applied`;
    case 'unchanged':
      return `unchanged: already ${label(to)}`;
    case 'backwards':
      return `backwards: ${label(from ?? to)} → ${label(to)} not applied`;
    case 'paid_after_close':
      return `paid after the invoice was closed (${label(from ?? to)}): the money must go back`;
    default:
      return null;
  }
}
