import {
  INVOICE_STATUS_NAMES,
  InvoiceStatusCode,
  isKnownStatusCode,
  KnownInvoiceStatusCode,
} from '../gateway/status';
import { statusRow } from './status-table';

/**
 * The one table of allowed status transitions.
 *
 * Reports about an invoice arrive late, twice and out of order (webhook retries, the reconciliation sweep, the
 * checkout's own operations), so "apply whatever came last" would let a stale report undo a payment. Instead every
 * listed code (spec §3) stands on a **stage** of the invoice's life, and an invoice only ever moves to a code on a
 * later stage. The stages form one line, so whatever order the reports of a legal life come in, the invoice ends on
 * the same code: the *furthest legal state*, i.e. the reported code with the highest stage.
 *
 * Reading the line: an open invoice (awaiting, overdue, processing, scheduled, authorized) can close unpaid
 * (denied, error, canceled) or be paid; a paid invoice can be refunded in steps or contested; refunded is final.
 * Paid outranks every unpaid ending, because money that arrived is a fact no stale report may hide: paid after a
 * closed attempt is applied and raised as a `paid_after_cancel` alert (the money must go back, or the order is
 * paid twice if the customer started another attempt).
 *
 * What the line gives up, on purpose: a report that would step back is recorded and not applied even when the
 * service really went back (a second bank-slip refund after a partial one, 8 → 7; a won dispute, 10 → 5). In each
 * case the kept code maps to the same or a safer order status (see `status-table.ts`) and the next forward report
 * applies normally. (A due-date change keeps an overdue invoice at 15, A11, so 15 → 1 is never a real move.)
 */
export const STATUS_STAGES: readonly KnownInvoiceStatusCode[] = [
  InvoiceStatusCode.AwaitingPayment, // 1
  InvoiceStatusCode.Overdue, // 15
  InvoiceStatusCode.Processing, // 2
  InvoiceStatusCode.Scheduled, // 3
  InvoiceStatusCode.Authorized, // 4
  InvoiceStatusCode.Denied, // 12
  InvoiceStatusCode.Error, // 16
  InvoiceStatusCode.Canceled, // 6
  InvoiceStatusCode.Paid, // 5
  InvoiceStatusCode.AwaitingRefund, // 7
  InvoiceStatusCode.PartiallyRefunded, // 8
  InvoiceStatusCode.Contested, // 10
  InvoiceStatusCode.Refunded, // 9
];

/** What the table says about one report: move or not, why, and whether a person must look. */
export interface TransitionDecision {
  /** `true`: the invoice moves to the reported code. `false`: the report is recorded only. */
  apply: boolean;
  /** Why it was refused or flagged; absent for a plain forward move. */
  reason?: string;
  /** Raised with an applied move that needs a person. */
  alert?: 'paid_after_cancel';
}

/** Stage of a listed code (its index in {@link STATUS_STAGES}), or `null` for a code the spec does not list. */
export function statusStage(code: number | null | undefined): number | null {
  if (code === null || code === undefined || !isKnownStatusCode(code)) return null;
  return STATUS_STAGES.indexOf(code);
}

function label(code: number): string {
  return isKnownStatusCode(code) ? `${code} ${INVOICE_STATUS_NAMES[code].toLowerCase()}` : String(code);
}

/**
 * Decides whether an invoice at `from` (`null`: no status yet) moves to the reported code `to`.
 *
 * - `to` not listed in spec §3 (11, 13, 14, anything else): recorded, never applied.
 * - `from` `null` or unlisted: any listed code applies (the first thing we learn).
 * - same code: nothing to do.
 * - `to` on a later stage: applied; paid (5) after an unpaid ending (canceled 6, denied 12, error 16) also raises
 *   `paid_after_cancel`.
 * - `to` on an earlier stage: a stale or backwards report, recorded and not applied.
 */
export function decideTransition(from: number | null, to: number): TransitionDecision {
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

/** A refused or flagged report's reason as a stable code (the admin page words it in the reader's language). */
export type TransitionNoteCode = 'unchanged' | 'backwards' | 'unknown_code' | 'paid_after_close';

/** The code of a reason {@link decideTransition} wrote (stored as the history's note); `null` for other notes. */
export function transitionNoteCode(note: string | null): TransitionNoteCode | null {
  if (!note) return null;
  if (note.startsWith('unchanged:')) return 'unchanged';
  if (note.startsWith('backwards:')) return 'backwards';
  if (note.startsWith('unknown status code')) return 'unknown_code';
  if (note.startsWith('paid after the invoice was closed')) return 'paid_after_close';
  return null;
}

/** One cell of {@link transitionTable}: `apply`, `alert` (applied and raised) or `refuse` (recorded only). */
export type TransitionCell = 'apply' | 'alert' | 'refuse';

/**
 * The whole table as data: for each listed `from` code (and `null`, no status yet) and each listed `to` code, what
 * {@link decideTransition} does. Unlisted `to` codes are always `refuse`. Used for docs/webhooks.md and by tests.
 */
export function transitionTable(): Array<{
  from: KnownInvoiceStatusCode | null;
  to: Record<number, TransitionCell>;
}> {
  const froms: Array<KnownInvoiceStatusCode | null> = [null, ...STATUS_STAGES];
  return froms.map((from) => {
    const to: Record<number, TransitionCell> = {};
    for (const code of STATUS_STAGES) {
      if (from === code) continue;
      const d = decideTransition(from, code);
      to[code] = d.apply ? (d.alert ? 'alert' : 'apply') : 'refuse';
    }
    return { from, to };
  });
}
