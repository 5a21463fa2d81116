import { statusRow, type PaymentSessionStatus } from '../domain/status-table';
import type { InvoiceRecord } from '../persistence/invoice.entity';

/**
 * A payment session as the host and the storefront see it, built from the invoice record: read by the provider, the
 * admin API and the host contract's types (core/checkout.types.ts), so it stands on the core.
 */
export function sessionStatusOf(record: InvoiceRecord): PaymentSessionStatus {
  if (record.creationState === 'failed') return 'error';
  if (record.creationState !== 'created' && record.attentionReason) return 'requires_more';
  const session = statusRow(record.statusCode)?.session ?? 'pending';
  // Money taken that is not what the invoice was for: a person decides, the session is never captured.
  if (record.amountMismatch && (session === 'captured' || session === 'authorized')) return 'requires_more';
  return session;
}

/** What the storefront and the host keep of a payment attempt: the `InvoicePaymentSessionData`. */
export function sessionDataOf(record: InvoiceRecord) {
  return {
    /** The local invoice record: the session's id. */
    invoiceRecordId: record.id,
    orderId: record.orderId,
    attempt: record.attempt,
    referrer: record.referrer,
    method: record.method,
    creationState: record.creationState,
    /** The service's invoice number and `invoice_id`. */
    gatewayId: record.gatewayId,
    gatewayInvoiceId: record.gatewayInvoiceId,
    statusCode: record.statusCode,
    statusText: record.statusText,
    sessionStatus: sessionStatusOf(record),
    amountCents: record.amountCents,
    currency: record.currency,
    /** `YYYY-MM-DD`. */
    dueDate: record.dueDate,
    installments: record.installments,
    pix: given({ payload: record.pixPayload, image: record.pixImage }),
    billet: given({ line: record.billetLine, barcode: record.billetBarcode, url: record.billetUrl }),
    card: given({ brand: record.cardBrand, last4: record.cardLast4 }),
    paymentUrl: record.paymentUrl,
    refundedCents: record.refundedCents,
    /** The service's gross amount differed from the order total: a person should look. */
    amountMismatch: record.amountMismatch,
    /** While the creation's outcome is unknown: until when the request could still land (nothing new before). */
    confirmingUntil:
      record.creationState === 'created' || record.creationState === 'failed' || !record.settlesAt
        ? null
        : record.settlesAt.toISOString(),
    /** Why the module stopped deciding on its own (the session is `requires_more`; the admin API resolves it). */
    attentionReason: record.creationState === 'created' ? null : record.attentionReason,
    /** This invoice duplicates the order's invoice in that record: it was canceled, or (paid) alerted. */
    duplicateOf: record.duplicateOf,
  };
}

/** `null` unless some field is set. */
function given<T extends Record<string, string | null>>(fields: T): T | null {
  return Object.values(fields).some(Boolean) ? fields : null;
}
