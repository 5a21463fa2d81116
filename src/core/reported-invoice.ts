import { centsToDecimalString } from '../gateway/money';
import { InvoiceStatusCode, statusRow } from '../domain/status-table';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { clip } from '../domain/text-bounds';

// What a status report's invoice does to a record beside its status: the fields it refreshes, and the amounts that
// must not change silently (a payment of another amount, a captured invoice's total or payment reported anew).

/** How the status history's note of a captured invoice's amount reported anew begins (it raises one alert). */
export const CAPTURED_AMOUNT_NOTE = 'captured amount reported anew';

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
function captured(record: InvoiceRecord): boolean {
  return statusRow(record.statusCode)?.session === 'captured';
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

function atLeast(recorded: number | null, reported: number | null): number | null {
  return reported === null ? null : Math.max(recorded ?? reported, reported);
}
