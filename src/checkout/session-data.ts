import { PaymentSessionStatus, statusRow } from '../core/status-table';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { InvoicePaymentSessionData } from './types';

/**
 * The session status of a record: from the status table once the service has answered; `pending` while the
 * creation is not settled; `error` when the service refused it.
 */
export function sessionStatusOf(record: InvoiceRecord): PaymentSessionStatus {
  if (record.creationState === 'failed') return 'error';
  // The module could not decide whether the invoice exists: a person resolves it (admin API).
  if (record.creationState !== 'created' && record.attentionReason) return 'requires_more';
  const session = statusRow(record.statusCode)?.session ?? 'pending';
  // Money taken that is not what the invoice was for: a person decides, the session is never captured.
  if (record.amountMismatch && (session === 'captured' || session === 'authorized')) return 'requires_more';
  return session;
}

/** What the storefront and the host keep of a payment attempt. */
export function sessionDataOf(record: InvoiceRecord): InvoicePaymentSessionData {
  const pix =
    record.pixPayload || record.pixImage ? { payload: record.pixPayload, image: record.pixImage } : null;
  const billet =
    record.billetLine || record.billetBarcode || record.billetUrl
      ? { line: record.billetLine, barcode: record.billetBarcode, url: record.billetUrl }
      : null;
  const card =
    record.cardBrand || record.cardLast4 ? { brand: record.cardBrand, last4: record.cardLast4 } : null;
  return {
    invoiceRecordId: record.id,
    orderId: record.orderId,
    attempt: record.attempt,
    referrer: record.referrer,
    method: record.method,
    creationState: record.creationState,
    gatewayId: record.gatewayId,
    gatewayInvoiceId: record.gatewayInvoiceId,
    statusCode: record.statusCode,
    statusText: record.statusText,
    sessionStatus: sessionStatusOf(record),
    amountCents: record.amountCents,
    currency: record.currency,
    dueDate: record.dueDate,
    installments: record.installments,
    pix,
    billet,
    card,
    paymentUrl: record.paymentUrl,
    refundedCents: record.refundedCents,
    amountMismatch: record.amountMismatch,
    confirmingUntil:
      record.creationState === 'created' || record.creationState === 'failed' || !record.settlesAt
        ? null
        : record.settlesAt.toISOString(),
    attentionReason: record.creationState === 'created' ? null : record.attentionReason,
    duplicateOf: record.duplicateOf,
  };
}
