import { statusIs } from '../domain/status-table';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoiceOperationNotAllowedError } from './invoice.errors';

export type InvoiceAction = 'changeDueDate' | 'cancel' | 'refund';

type ActionSubject = Pick<
  InvoiceRecord,
  'creationState' | 'method' | 'statusCode' | 'paidCents' | 'grossCents' | 'amountCents' | 'refundedCents'
>;

/** Why an action is refused: the rule in words (for the API's `message`) and a stable code for the page. */
interface ActionRefusal {
  reason: 'not_created' | 'wrong_status' | 'wrong_method' | 'nothing_left';
  rule: string;
}

/** Cents still refundable: what was paid (else the invoice's gross, else the order total) minus refunds. */
export function refundableCents(record: ActionSubject): number {
  const paid = record.paidCents ?? record.grossCents ?? record.amountCents;
  return Math.max(0, paid - record.refundedCents);
}

/** The one place saying which operation an invoice's state allows (§4.3, A8, A11); `null`: allowed. */
export function refusal(action: InvoiceAction, record: ActionSubject): ActionRefusal | null {
  if (record.creationState !== 'created') {
    return { reason: 'not_created', rule: `its creation is ${record.creationState}` };
  }
  const code = record.statusCode ?? -1;
  const status = `it is a ${record.method} invoice in status ${record.statusCode ?? 'none'}`;
  if (action === 'changeDueDate') {
    if (record.method === 'card') return { reason: 'wrong_method', rule: 'only PIX and bank-slip invoices' };
    if (!statusIs(code, 'dueDateMovable'))
      return { reason: 'wrong_status', rule: `only in status 1 or 15; ${status}` };
  } else if (action === 'cancel') {
    if (!statusIs(code, 'cancellable'))
      return { reason: 'wrong_status', rule: `only in status 1, 2, 3, 4 or 15; ${status}` };
  } else {
    if (!statusIs(code, 'refundable'))
      return { reason: 'wrong_status', rule: `only paid invoices (5, 8); ${status}` };
    if (refundableCents(record) <= 0) return { reason: 'nothing_left', rule: 'nothing left to refund' };
  }
  return null;
}

export function allowedActions(record: ActionSubject): InvoiceAction[] {
  return (['changeDueDate', 'cancel', 'refund'] as const).filter((a) => refusal(a, record) === null);
}

/** Throws `InvoiceOperationNotAllowedError` unless `action` is allowed (`unless`: a reason checked later). */
export function assertAllowed(
  action: InvoiceAction,
  record: ActionSubject & Pick<InvoiceRecord, 'id'>,
  unless?: ActionRefusal['reason'],
): void {
  const refused = refusal(action, record);
  if (refused && refused.reason !== unless) {
    throw new InvoiceOperationNotAllowedError(
      action,
      record.id,
      refused.rule,
      refused.reason,
      record.statusCode,
    );
  }
}
