import { InvoicePaymentsError } from '../domain/invoice-payments.error';
import {
  INVOICE_STATUS_NAMES,
  InvoiceStatusCode,
  isKnownStatusCode,
  type KnownInvoiceStatusCode,
} from '../gateway/status';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { CreationMove } from './creation-move';

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

/**
 * How an owner's screen marks a state: `paid` (the money is with the store), `open` (someone still has to act: the
 * customer, the service, a refund or a dispute under way), `ended` (the money is not, or no longer, with the store:
 * refunded, canceled, denied, error) and `expired` (the due date passed; payable again once it moves).
 */
export type StatusTone = 'paid' | 'open' | 'ended' | 'expired';

/**
 * The payment as the shopper sees it (the status routes' `state`). `waiting` turns `expired` for a PIX past its
 * expiry (a time rule of the shopper's view, not a status code).
 */
export type ShopperState = 'waiting' | 'processing' | 'paid' | 'expired' | 'canceled' | 'failed' | 'refunded';

export interface StatusRow {
  code: KnownInvoiceStatusCode;
  session: PaymentSessionStatus;
  order: OrderPaymentStatus;
  /** What the shopper's payment screen shows. */
  shopper: ShopperState;
  /** The attempt can never be paid (canceled, denied, error): the order may start another. */
  releasesOrder: boolean;
  /** How an owner's screen (Medusa's widget, Vendure's dashboard) marks the status. */
  tone: StatusTone;
}

/** Each code of spec §3 → the payment session's status → the order's; unlisted codes (11, 13, 14) never apply. */
export const STATUS_TABLE: Readonly<Record<KnownInvoiceStatusCode, StatusRow>> = {
  1: {
    code: 1,
    session: 'pending',
    order: 'awaiting',
    shopper: 'waiting',
    releasesOrder: false,
    tone: 'open',
  },
  2: {
    code: 2,
    session: 'pending',
    order: 'awaiting',
    shopper: 'processing',
    releasesOrder: false,
    tone: 'open',
  },
  3: {
    code: 3,
    session: 'pending',
    order: 'awaiting',
    shopper: 'processing',
    releasesOrder: false,
    tone: 'open',
  },
  4: {
    code: 4,
    session: 'authorized',
    order: 'authorized',
    shopper: 'paid',
    releasesOrder: false,
    tone: 'open',
  },
  5: { code: 5, session: 'captured', order: 'captured', shopper: 'paid', releasesOrder: false, tone: 'paid' },
  6: {
    code: 6,
    session: 'canceled',
    order: 'canceled',
    shopper: 'canceled',
    releasesOrder: true,
    tone: 'ended',
  },
  // The refund was asked for and the money has not gone back yet: the order is still paid.
  7: { code: 7, session: 'captured', order: 'captured', shopper: 'paid', releasesOrder: false, tone: 'open' },
  8: {
    code: 8,
    session: 'captured',
    order: 'partially_refunded',
    shopper: 'paid',
    releasesOrder: false,
    tone: 'open',
  },
  9: {
    code: 9,
    session: 'captured',
    order: 'refunded',
    shopper: 'refunded',
    releasesOrder: false,
    tone: 'ended',
  },
  // A dispute needs a person: the money may be taken back.
  10: {
    code: 10,
    session: 'captured',
    order: 'requires_action',
    shopper: 'paid',
    releasesOrder: false,
    tone: 'open',
  },
  12: {
    code: 12,
    session: 'error',
    order: 'not_paid',
    shopper: 'failed',
    releasesOrder: true,
    tone: 'ended',
  },
  // Overdue: still payable once the due date moves (§4.3), so the customer has more to do.
  15: {
    code: 15,
    session: 'requires_more',
    order: 'awaiting',
    shopper: 'expired',
    releasesOrder: false,
    tone: 'expired',
  },
  16: {
    code: 16,
    session: 'error',
    order: 'not_paid',
    shopper: 'failed',
    releasesOrder: true,
    tone: 'ended',
  },
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
