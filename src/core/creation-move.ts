import { InvoicePaymentsError } from '../domain/invoice-payments.error';
import type { InvoiceCreationState, InvoiceRecord } from '../persistence/invoice.entity';

/** A creation-state move: the states the record must be in (compare-and-set), and what the move writes. */
export interface CreationMove {
  from: readonly InvoiceCreationState[];
  patch: Partial<InvoiceRecord>;
}

/** Each creation state from the states that may reach it (`created` is final); see {@link creationMove}. */
export const CREATION_MOVES: Readonly<Record<InvoiceCreationState, readonly InvoiceCreationState[]>> = {
  pending: ['pending', 'unknown'],
  unknown: ['pending'],
  created: ['pending', 'unknown', 'failed'],
  failed: ['pending', 'unknown'],
};

/** Throws for a move the table does not list (a bug of the module). */
export function creationMove(
  from: readonly InvoiceCreationState[],
  to: InvoiceCreationState,
  fields: Partial<InvoiceRecord>,
): CreationMove {
  const refused = from.filter((state) => !CREATION_MOVES[to].includes(state));
  if (from.length === 0 || refused.length > 0)
    throw new Error(`creation state: no move from ${refused.join(', ') || 'nothing'} to ${to}`);
  return { from: [...from], patch: { ...fields, creationState: to } };
}

/**
 * Why `move` may not be written onto `record`, or `null`: the record is in no state the move starts from, or holds
 * another invoice's number (an invoice linked to it meanwhile keeps it). A record the move has already reached, with
 * the same number (its webhook linked it first), takes it again: the report's status must not be lost.
 */
export function creationMoveRefusal(record: InvoiceRecord, { from, patch }: CreationMove): string | null {
  const reached = record.gatewayId !== null && record.creationState === patch.creationState;
  if (!from.includes(record.creationState) && !(reached && record.gatewayId === patch.gatewayId))
    return `its creation state is ${record.creationState}`;
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
