import { InvoicePaymentsError } from '../errors/invoice-payments.error';
import type { InvoiceCreationState, InvoiceRecord } from '../persistence/invoice.entity';

/** A creation-state move: the states the record must be in (compare-and-set), and what the move writes. */
export interface CreationMove {
  from: readonly InvoiceCreationState[];
  patch: Partial<InvoiceRecord>;
}

/**
 * Why `move` may not be written onto `record`, or `null`: the record is in no state the move starts from, or holds
 * another invoice's number (an invoice linked to it meanwhile keeps it).
 */
export function creationMoveRefusal(record: InvoiceRecord, { from, patch }: CreationMove): string | null {
  if (!from.includes(record.creationState)) return `its creation state is ${record.creationState}`;
  if (record.gatewayId !== null && record.gatewayId !== patch.gatewayId)
    return `it holds invoice ${record.gatewayId}, not ${patch.gatewayId ?? 'none'}`;
  return null;
}

/** The record refused the creation move written with a status report (`details.reason`): nothing was written. */
export class CreationMoveRefusedError extends InvoicePaymentsError {
  constructor(
    readonly recordId: string,
    reason: string,
  ) {
    super('creation_move_refused', `invoice record ${recordId} refused the creation move: ${reason}`, {
      recordId,
      reason,
    });
  }
}
