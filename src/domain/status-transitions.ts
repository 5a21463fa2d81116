import { InvoiceStatusCode, statusIs, statusRow, statusStage } from './status-table';

/**
 * What a report does to an invoice: `apply` (it moves), `paid_after_close` (it moves, and the money of an invoice
 * that could no longer be paid must go back), or it is recorded and refused: `unchanged` (already so), `backwards`
 * (an earlier stage) or `unknown_code` (a code the spec does not list). Stable: the admin page words each one.
 */
export type TransitionVerdict = 'apply' | 'paid_after_close' | 'unchanged' | 'backwards' | 'unknown_code';

/** A decided transition, in codes; {@link transitionText} words it for people. */
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
  const toStage = statusStage(to);
  const fromStage = statusStage(from);
  if (toStage === null) return { from, to, verdict: 'unknown_code', apply: false };
  if (from === null || fromStage === null) return { from, to, verdict: 'apply', apply: true };
  if (from === to) return { from, to, verdict: 'unchanged', apply: false };
  if (toStage < fromStage) return { from, to, verdict: 'backwards', apply: false };
  if (to === InvoiceStatusCode.Paid && statusIs(from, 'releasesOrder')) {
    return { from, to, verdict: 'paid_after_close', apply: true, alert: 'paid_after_cancel' };
  }
  return { from, to, verdict: 'apply', apply: true };
}

/**
 * The transition a status history row records, decided again from the two codes it stores (the history keeps codes,
 * never a sentence to read back); `null` for a row that is no report (a person's resolution).
 */
export function transitionOfRow(row: { fromCode: number | null; toCode: number | null }): Transition | null {
  return row.toCode === null ? null : decideTransition(row.fromCode, row.toCode);
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
