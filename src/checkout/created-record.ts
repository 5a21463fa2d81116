import type { StatusReportResult } from '../core/invoice-status.service';
import { statusRow } from '../core/status-table';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/**
 * The record as the status path wrote it when it applied the create's answer (`InvoiceStatusService.applyWithin`
 * with `alsoSet`) to `record`, a row that had no status yet: the checkout answers with it instead of reading back
 * what it just wrote. `null` when the answer was not applied to a status-less row (another report came first):
 * the row then holds more than this knows, and the caller reads it.
 *
 * Mirrors what the status path writes from an invoice (its `snapshotOf`, for a row with nothing stored yet: every
 * reported value that is present, clipped to its column); keep the two in step until the status path returns the
 * record it wrote. `updatedAt` is the caller's (`alsoSet`), within milliseconds of the stored one: no
 * compare-and-set of the checkout uses it on a created record.
 */
export function createdRecord(
  record: InvoiceRecord,
  invoice: Invoice,
  alsoSet: Partial<InvoiceRecord>,
  result: StatusReportResult,
): InvoiceRecord | null {
  if (!result.applied || result.previousCode !== null || record.statusCode !== null) return null;
  const reported: Partial<InvoiceRecord> = {};
  const set = <K extends keyof InvoiceRecord>(key: K, value: InvoiceRecord[K] | null | undefined) => {
    if (value !== null && value !== undefined) reported[key] = value;
  };
  set('grossCents', invoice.amounts.grossCents);
  set('netCents', invoice.amounts.netCents);
  set('feesCents', invoice.amounts.feesCents);
  set('discountCents', invoice.amounts.discountCents);
  set('shippingCents', invoice.amounts.shippingCents);
  set('paidCents', invoice.amounts.paidCents);
  set('refundedCents', invoice.refunds.totalCents);
  set('pixPayload', invoice.pix?.payload);
  set('pixImage', invoice.pix?.image);
  set('billetLine', clip(invoice.billet?.line, 64));
  set('billetBarcode', clip(invoice.billet?.barcode, 64));
  set('billetUrl', invoice.billet?.url);
  set('paymentUrl', invoice.paymentUrl);
  set('dueDate', invoice.dueDate);
  set('installments', invoice.installments);
  set('cardBrand', clip(invoice.card?.brand, 32));
  set('cardLast4', clip(invoice.card?.last4, 4));
  if (invoice.raw !== undefined) set('rawSnapshot', JSON.stringify(invoice.raw));
  const code = invoice.status.code;
  return {
    ...record,
    ...alsoSet,
    ...reported,
    statusCode: code,
    statusText: clip(invoice.status.text, 128),
    openOrderId: statusRow(code)?.releasesOrder ? null : record.openOrderId,
    amountMismatch: alsoSet.amountMismatch === true || result.alert === 'amount_mismatch',
    version: record.version + 1,
  };
}

function clip(value: string | null | undefined, max: number): string | null {
  return value === null || value === undefined ? null : value.slice(0, max);
}
