import { EntityManager, LessThan } from 'typeorm';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { PaymentStatusChange, PaymentStatusSnapshot } from './order-payment.port';
import { statusRow } from './status-table';

/**
 * What the host is told about an applied history row: the previous and the new status, each with what it means
 * for the payment session and the order (`status-table.ts`). The previous status text is the one its own
 * applied row recorded.
 */
export async function statusChangeOf(
  em: EntityManager,
  row: InvoiceStatusHistory,
  record: InvoiceRecord,
): Promise<PaymentStatusChange> {
  let previousText: string | null = null;
  if (row.fromCode !== null) {
    const before = await em.getRepository(InvoiceStatusHistory).findOne({
      where: {
        invoiceRecordId: row.invoiceRecordId,
        applied: true,
        toCode: row.fromCode,
        createdAt: LessThan(row.createdAt),
      },
      order: { createdAt: 'DESC' },
    });
    previousText = before?.statusText ?? null;
  }
  return changeOf(row, record, previousText);
}

/**
 * The change of an applied history row when the previous status's text is known already (the status path has the
 * record's text at hand when it applies a change: no read is needed).
 */
export function changeOf(
  row: InvoiceStatusHistory,
  record: InvoiceRecord,
  previousText: string | null,
): PaymentStatusChange {
  // Only applied rows are dispatched; an admin's resolution row (no code) is never applied.
  if (row.toCode === null || row.source === 'admin') {
    throw new Error(`status history row ${row.id} is not a status change`);
  }
  return {
    orderId: record.orderId,
    invoiceRecordId: record.id,
    gatewayId: record.gatewayId,
    method: record.method,
    previous: row.fromCode === null ? null : statusSnapshot(row.fromCode, previousText),
    current: statusSnapshot(row.toCode, row.statusText, record.amountMismatch),
    source: row.source,
    ...(row.alert === 'paid_after_cancel' || row.alert === 'amount_mismatch'
      ? { alert: row.alert as 'paid_after_cancel' | 'amount_mismatch' }
      : {}),
    ...(record.duplicateOf ? { duplicateOf: record.duplicateOf } : {}),
    occurredAt: row.createdAt,
  };
}

/**
 * One side of a change. `amountMismatch`: the money taken is not what the invoice was created for, so a status
 * that would capture or authorize the order asks for a person instead (`requires_more` / `requires_action`).
 */
export function statusSnapshot(
  code: number,
  text: string | null,
  amountMismatch = false,
): PaymentStatusSnapshot {
  const row = statusRow(code);
  const takesMoney = row?.session === 'captured' || row?.session === 'authorized';
  if (amountMismatch && takesMoney)
    return { code, text, sessionStatus: 'requires_more', orderPaymentStatus: 'requires_action' };
  // Applied changes only ever carry listed codes; the fallback keeps a corrupted row from stopping the outbox.
  return {
    code,
    text,
    sessionStatus: row?.session ?? 'error',
    orderPaymentStatus: row?.order ?? 'requires_action',
  };
}
