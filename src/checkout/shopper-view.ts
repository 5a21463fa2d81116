import { dayEndIn, todayIn } from '../domain/text-and-days';
import { statusRow, type ShopperState } from '../domain/status-table';
import { centsToDecimalString } from '../gateway/money';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { refusal } from '../core/invoice-actions';

/**
 * One payment as the shopper's screen shows it: the answer of every host's status route (the `<invoice-payment>`
 * component reads it). Amounts are exact decimal strings; instants are ISO-8601, days `YYYY-MM-DD`.
 */
export interface ShopperPaymentView {
  method: 'pix' | 'billet' | 'card';
  state: ShopperState;
  /** What the shopper pays, e.g. `"123.45"`. */
  amount: string;
  currency: string;
  /** The service's invoice number (`id`), `null` before it is known. */
  invoiceNumber: string | null;
  pix: { payload: string | null; image: string | null; expiresAt: string | null } | null;
  billet: { line: string | null; barcode: string | null; url: string | null; dueAt: string | null } | null;
  card: { brand: string | null; last4: string | null; installments: number | null } | null;
  /** An expired PIX (or one expiring within {@link RENEWABLE_BEFORE_MS}) may get a new code through the store. */
  renewable: boolean;
  /** The order's "what now" page, when the host knows one. */
  orderUrl: string | null;
}

/**
 * What the view needs besides the record: the zone the service counts days in (the wire profile's `timeZone`, A2): a
 * PIX expires when its due day ends there, whatever the store's own zone.
 */
export interface ShopperViewContext {
  serviceZone: string;
  now: Date;
  orderUrl?: string | null;
}

/** A PIX this close to its expiry may already be renewed: the shopper would not finish paying it in time. */
export const RENEWABLE_BEFORE_MS = 10 * 60_000;

/**
 * The shopper's view of an invoice record, from the record alone (no call to the service: webhooks and the
 * reconciliation keep the record fresh). The state comes from the status table's `shopper` column.
 */
export function shopperViewOf(record: InvoiceRecord, context: ShopperViewContext): ShopperPaymentView {
  const state = stateOf(record, context);
  const expiresAt =
    record.method === 'pix' && record.dueDate ? dayEndIn(record.dueDate, context.serviceZone) : null;
  return {
    method: record.method,
    state,
    amount: centsToDecimalString(record.amountCents),
    currency: record.currency,
    invoiceNumber: record.gatewayId,
    pix: pixOf(record, expiresAt),
    billet: billetOf(record),
    card:
      record.method === 'card'
        ? { brand: record.cardBrand, last4: record.cardLast4, installments: record.installments ?? null }
        : null,
    renewable: renewable(record, state, expiresAt, context.now),
    orderUrl: context.orderUrl ?? null,
  };
}

/**
 * The table's `shopper` state, then two time rules for PIX and bank slip: an awaiting invoice whose due day has
 * ended in the service's zone is expired before the service says so, and an overdue one whose due day was moved past
 * today (a renewal; the service keeps it overdue, and paying it still pays it) is waiting again.
 */
function stateOf(record: InvoiceRecord, { serviceZone, now }: ShopperViewContext): ShopperState {
  if (record.creationState === 'failed') return 'failed';
  // Not created yet (or not known to be): the store is still confirming it.
  if (record.creationState !== 'created') return 'processing';
  const shopper = statusRow(record.statusCode)?.shopper ?? 'processing';
  // Money taken that is not what the invoice was for: a person decides before the order counts as paid.
  if (shopper === 'paid' && record.amountMismatch) return 'processing';
  const due = record.method === 'card' ? null : record.dueDate;
  if (!due) return shopper;
  if (shopper === 'waiting' && now.getTime() >= dayEndIn(due, serviceZone).getTime()) return 'expired';
  if (shopper === 'expired' && due > todayIn(serviceZone, now)) return 'waiting';
  return shopper;
}

function renewable(record: InvoiceRecord, state: ShopperState, expiresAt: Date | null, now: Date): boolean {
  if (record.method !== 'pix' || refusal('changeDueDate', record) !== null) return false;
  if (state === 'expired') return true;
  return state === 'waiting' && !!expiresAt && expiresAt.getTime() - now.getTime() <= RENEWABLE_BEFORE_MS;
}

function pixOf(record: InvoiceRecord, expiresAt: Date | null): ShopperPaymentView['pix'] {
  if (record.method !== 'pix' || (!record.pixPayload && !record.pixImage)) return null;
  return { payload: record.pixPayload, image: record.pixImage, expiresAt: expiresAt?.toISOString() ?? null };
}

function billetOf(record: InvoiceRecord): ShopperPaymentView['billet'] {
  if (record.method !== 'billet' || (!record.billetLine && !record.billetUrl)) return null;
  return {
    line: record.billetLine,
    barcode: record.billetBarcode,
    url: record.billetUrl,
    dueAt: record.dueDate,
  };
}
