import type { InvoiceRefund, RefundState } from './refund.entity';

/** A refund as the admin API shows it. */
export interface RefundView {
  id: string;
  invoiceRecordId: string;
  amountCents: number;
  /** `pending` (being sent), `unknown` (answer lost: being confirmed), `succeeded`, `failed`. */
  state: RefundState;
  /** `true` while the module is confirming with the service whether it was made. */
  confirming: boolean;
  requestedBy: string;
  idempotencyKey: string;
  /** Why it failed, how it was confirmed, or what is unclear while unknown. */
  reason: string | null;
  /** The next read-back of an unknown refund. */
  nextCheckAt: string | null;
  createdAt: string;
  settledAt: string | null;
}

export function refundView(row: InvoiceRefund): RefundView {
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
