import type { InvoiceRefund } from './refund.entity';

/** A refund as the admin API shows it; `confirming` while the module confirms with the service whether it was made. */
export type RefundView = ReturnType<typeof refundView>;

export function refundView(row: InvoiceRefund) {
  return {
    id: row.id,
    invoiceRecordId: row.invoiceRecordId,
    amountCents: row.amountCents,
    state: row.state,
    confirming: row.state === 'unknown',
    requestedBy: row.requestedBy,
    idempotencyKey: row.idempotencyKey,
    reason: row.reason,
    nextCheckAt: row.nextCheckAt ? row.nextCheckAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    settledAt: row.settledAt ? row.settledAt.toISOString() : null,
  };
}
