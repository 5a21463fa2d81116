import { InvoicePaymentsError } from '../domain/invoice-payments.error';
import type { StatusReportSource } from '../domain/status-table';
import type { TransitionVerdict } from '../domain/status-transitions';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { CreationMove } from './creation-move';

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
