import type { InvoicePaymentsAlert } from './events';
import type { PaymentSessionStatus } from '../domain/status-table';

/*
 * Every attribute set of each counter, so every series starts at 0: Prometheus' `increase()` sees an event only as a
 * rise between two samples, so a series born at 1 would hide a process's first alert.
 */

type Attributes = Record<string, string>;

/**
 * Every alert kind; the check below fails to compile when `InvoicePaymentsAlert['kind']` gains one not listed. The
 * owner screens' words for each kind are checked against this list (test/settings/alert-words.spec.ts).
 */
export const ALERT_KINDS = [
  'paid_after_cancel',
  'amount_mismatch',
  'webhook_dead_letter',
  'duplicate_paid',
  'creation_unresolved',
  'invoice_number_clash',
  'foreign_invoice',
  'tracking_failed',
  'implausible_amount',
  'refund_unresolved',
  'captured_amount_changed',
] as const satisfies ReadonlyArray<InvoicePaymentsAlert['kind']>;
type UnlistedAlertKind = Exclude<InvoicePaymentsAlert['kind'], (typeof ALERT_KINDS)[number]>;
const alertKindsComplete: [UnlistedAlertKind] extends [never] ? true : UnlistedAlertKind = true;
void alertKindsComplete;

const SESSION_STATUSES = [
  'pending',
  'requires_more',
  'authorized',
  'captured',
  'canceled',
  'error',
] as const satisfies ReadonlyArray<PaymentSessionStatus>;
type UnlistedStatus = Exclude<PaymentSessionStatus, (typeof SESSION_STATUSES)[number]>;
const statusesComplete: [UnlistedStatus] extends [never] ? true : UnlistedStatus = true;
void statusesComplete;

/** The sources status changes are counted under (the module's own sources grouped as an operator reads them). */
export const CHANGE_SOURCES = ['webhook', 'reconciliation', 'checkout', 'operation'] as const;

const each = (key: string, values: readonly string[]): Attributes[] => values.map((v) => ({ [key]: v }));

/** By counter (the keys of `otel.ts`' instruments): the attribute sets started at 0. */
export const KNOWN_ATTRIBUTES: Record<string, Attributes[]> = {
  deliveries: each('invoice_payments.outcome', ['accepted', 'duplicate', 'ignored', 'refused', 'forged']),
  changes: CHANGE_SOURCES.flatMap((source) =>
    SESSION_STATUSES.map((status) => ({
      'invoice_payments.source': source,
      'invoice_payments.status': status,
    })),
  ),
  rounds: [{}],
  findings: each('invoice_payments.finding', ['checked', 'applied', 'closed', 'errors']),
  refunds: each('invoice_payments.outcome', ['made', 'refused', 'unknown']),
  alerts: each('invoice_payments.alert.kind', ALERT_KINDS),
  tracking: each('invoice_payments.outcome', ['posted', 'failed']),
};
