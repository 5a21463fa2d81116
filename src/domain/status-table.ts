/**
 * The one status table: every invoice status code of spec §3 with its name, its place in the order reports are
 * applied in, what the host and the screens see, and what the status allows. Module code holds no status number of
 * its own: it asks this table (`statusIs(code, 'refundable')`, `sessionStatusOfCode(code, mismatch)`) or names a code
 * through {@link InvoiceStatusCode}. The transition a report makes by it is decided in core/status-report.ts.
 */

/** The service's invoice states (§3): rely on `status.code`; `status.text` varies by acquirer. */
export const InvoiceStatusCode = {
  AwaitingPayment: 1,
  Processing: 2,
  Scheduled: 3,
  Authorized: 4,
  Paid: 5,
  Canceled: 6,
  AwaitingRefund: 7,
  PartiallyRefunded: 8,
  Refunded: 9,
  Contested: 10,
  Denied: 12,
  Overdue: 15,
  Error: 16,
} as const;

export type KnownInvoiceStatusCode = (typeof InvoiceStatusCode)[keyof typeof InvoiceStatusCode];

/** Every payment session status, the one list (each starts its counter series at 0). */
export const SESSION_STATUSES = [
  'pending',
  'requires_more',
  'authorized',
  'captured',
  'canceled',
  'error',
] as const;

/** The status of a payment session as the module's provider reports it (Medusa's provider contract, on every host). */
export type PaymentSessionStatus = (typeof SESSION_STATUSES)[number];

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
 * refunded, canceled, denied, error) and `expired` (the due date passed; payable again once it moves). A mark for
 * people only (Medusa's widget and Vendure's dashboard show it): no rule reads it, rules read the flags below.
 */
export type StatusTone = 'paid' | 'open' | 'ended' | 'expired';

/**
 * The payment as the shopper sees it (the status routes' `state`). `waiting` turns `expired` for a PIX past its
 * expiry (a time rule of the shopper's view, not a status code).
 */
export type ShopperState = 'waiting' | 'processing' | 'paid' | 'expired' | 'canceled' | 'failed' | 'refunded';

/**
 * What a status allows, asked with {@link statusIs}:
 * - `open`: the invoice may still take the customer's money (not paid, not ended). The module's one meaning of
 *   "open": an order keeps at most one open invoice, and a duplicate still open is canceled.
 * - `cancellable`: the store may cancel it (A11). The same codes as `open` by the spec's choice, not by a rule.
 * - `dueDateMovable`: the store may move its due date (§4.3): the customer has yet to pay it.
 * - `refundable`: the store may ask for a refund (A8).
 * - `trackable`: the store may send a tracking code (A9).
 * - `releasesOrder`: it can never be paid (canceled, denied, error): the order may start another attempt.
 * - `watched`: not final, it may still change on its own at the service, so the reconciler keeps asking about it.
 *   A notion apart from `open`: an authorized card is captured and an asked-for refund is made (4, 7) with no one
 *   paying anything.
 */
export type StatusFlag =
  'open' | 'cancellable' | 'dueDateMovable' | 'refundable' | 'trackable' | 'releasesOrder' | 'watched';

export interface StatusRow {
  code: KnownInvoiceStatusCode;
  /** The code's name in the spec. */
  name: string;
  /** Its place in the order reports are applied in ({@link STATUS_STAGES}). */
  stage: number;
  session: PaymentSessionStatus;
  order: OrderPaymentStatus;
  /** What the shopper's payment screen shows. */
  shopper: ShopperState;
  /** How an owner's screen (Medusa's widget, Vendure's dashboard) marks the status. */
  tone: StatusTone;
  /** What the status allows ({@link StatusFlag}). */
  is: readonly StatusFlag[];
}

type Row = Omit<StatusRow, 'code'>;

/**
 * Each code of spec §3; unlisted codes (11, 13, 14) never apply. Stages: reports arrive late, twice and out of
 * order, so an invoice only moves to a later stage and ends on the furthest legal state whatever the order. Paid
 * outranks every unpaid ending; a step back is recorded, never applied (docs/webhooks.md has the table).
 */
const ROWS: Readonly<Record<KnownInvoiceStatusCode, Row>> = {
  1: {
    name: 'Awaiting payment',
    stage: 0,
    session: 'pending',
    order: 'awaiting',
    shopper: 'waiting',
    tone: 'open',
    is: ['open', 'cancellable', 'dueDateMovable', 'watched'],
  },
  2: {
    name: 'Processing',
    stage: 2,
    session: 'pending',
    order: 'awaiting',
    shopper: 'processing',
    tone: 'open',
    is: ['open', 'cancellable', 'watched'],
  },
  3: {
    name: 'Payment scheduled',
    stage: 3,
    session: 'pending',
    order: 'awaiting',
    shopper: 'processing',
    tone: 'open',
    is: ['open', 'cancellable', 'watched'],
  },
  4: {
    name: 'Authorized',
    stage: 4,
    session: 'authorized',
    order: 'authorized',
    shopper: 'paid',
    tone: 'open',
    is: ['open', 'cancellable', 'trackable', 'watched'],
  },
  5: {
    name: 'Paid',
    stage: 8,
    session: 'captured',
    order: 'captured',
    shopper: 'paid',
    tone: 'paid',
    is: ['refundable', 'trackable'],
  },
  6: {
    name: 'Canceled',
    stage: 7,
    session: 'canceled',
    order: 'canceled',
    shopper: 'canceled',
    tone: 'ended',
    is: ['releasesOrder'],
  },
  // The refund was asked for and the money has not gone back yet: the order is still paid.
  7: {
    name: 'Awaiting refund',
    stage: 9,
    session: 'captured',
    order: 'captured',
    shopper: 'paid',
    tone: 'open',
    is: ['watched'],
  },
  8: {
    name: 'Partially refunded',
    stage: 10,
    session: 'captured',
    order: 'partially_refunded',
    shopper: 'paid',
    tone: 'open',
    is: ['refundable', 'trackable'],
  },
  9: {
    name: 'Refunded',
    stage: 12,
    session: 'captured',
    order: 'refunded',
    shopper: 'refunded',
    tone: 'ended',
    is: [],
  },
  // A dispute needs a person: the money may be taken back.
  10: {
    name: 'Contested',
    stage: 11,
    session: 'captured',
    order: 'requires_action',
    shopper: 'paid',
    tone: 'open',
    is: [],
  },
  12: {
    name: 'Payment denied',
    stage: 5,
    session: 'error',
    order: 'not_paid',
    shopper: 'failed',
    tone: 'ended',
    is: ['releasesOrder'],
  },
  // Overdue: still payable once the due date moves (§4.3), so the customer has more to do.
  15: {
    name: 'Payment overdue',
    stage: 1,
    session: 'requires_more',
    order: 'awaiting',
    shopper: 'expired',
    tone: 'expired',
    is: ['open', 'cancellable', 'dueDateMovable', 'watched'],
  },
  16: {
    name: 'Payment error',
    stage: 6,
    session: 'error',
    order: 'not_paid',
    shopper: 'failed',
    tone: 'ended',
    is: ['releasesOrder'],
  },
};

/** Each code's row, the code included. */
export const STATUS_TABLE: Readonly<Record<KnownInvoiceStatusCode, StatusRow>> = Object.fromEntries(
  Object.entries(ROWS).map(([code, row]) => [code, { code: Number(code), ...row }]),
) as Record<KnownInvoiceStatusCode, StatusRow>;

/** The row of a code, or `null` for a code the spec does not list (never applied) or no status yet. */
export function statusRow(code: number | null | undefined): StatusRow | null {
  if (code === null || code === undefined) return null;
  return (STATUS_TABLE as Readonly<Record<number, StatusRow | undefined>>)[code] ?? null;
}

/** Whether the status allows what `flag` names; never for no status yet or a code the spec does not list. */
export function statusIs(code: number | null | undefined, flag: StatusFlag): boolean {
  return statusRow(code)?.is.includes(flag) ?? false;
}

/** The session a status gives (`null`: unlisted); money taken for another amount waits for a person, never captured. */
export function sessionStatusOfCode(code: number | null, mismatch: boolean): PaymentSessionStatus | null {
  const session = statusRow(code)?.session ?? null;
  return mismatch && (session === 'captured' || session === 'authorized') ? 'requires_more' : session;
}

/**
 * The listed codes in the order reports are applied in: awaiting payment, overdue, processing, scheduled,
 * authorized, denied, error, canceled, paid, awaiting refund, partially refunded, contested, refunded.
 */
export const STATUS_STAGES: readonly KnownInvoiceStatusCode[] = Object.values(STATUS_TABLE)
  .sort((a, b) => a.stage - b.stage)
  .map((row) => row.code);

/** What reported a status: creation, an operation's answer, a webhook, a reconciliation sweep or a provider read. */
export const STATUS_REPORT_SOURCES = ['create', 'operation', 'webhook', 'sweep', 'provider'] as const;

/** One of {@link STATUS_REPORT_SOURCES}. */
export type StatusReportSource = (typeof STATUS_REPORT_SOURCES)[number];

/** A history row's source: a report, or `admin` (a resolution noted by a person, never dispatched). */
export type StatusChangeSource = StatusReportSource | 'admin';
