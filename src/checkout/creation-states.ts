import type { InvoiceCreationState, InvoiceRecord } from '../persistence/invoice.entity';
import type { RecognisedOrder } from './client-mapping';

/** Each creation state from the states that may reach it (`created` is final); see {@link creationMove}. */
export const CREATION_MOVES: Readonly<Record<InvoiceCreationState, readonly InvoiceCreationState[]>> = {
  pending: ['pending', 'unknown'],
  unknown: ['pending'],
  created: ['pending', 'unknown', 'failed'],
  failed: ['pending', 'unknown'],
};

export const CLAIMED_STATE = 'pending' satisfies InvoiceCreationState;

/** What the claim's INSERT writes; every other column starts as {@link BLANK}. */
type ClaimedColumns =
  | 'id'
  | 'orderId'
  | 'openOrderId'
  | 'attempt'
  | 'referrer'
  | 'creationState'
  | 'method'
  | 'currency'
  | 'amountCents'
  | 'installments'
  | 'settlesAt'
  | 'createdAt'
  | 'updatedAt'
  | 'version'
  | keyof RecognisedOrder;

/** A new row's other columns as the database defaults them, so the claimed row needs no read-back. */
export const BLANK: Omit<InvoiceRecord, ClaimedColumns> = {
  gatewayId: null,
  gatewayUuid: null,
  gatewayInvoiceId: null,
  statusCode: null,
  statusText: null,
  grossCents: null,
  netCents: null,
  feesCents: null,
  discountCents: null,
  shippingCents: null,
  paidCents: null,
  refundedCents: 0,
  amountMismatch: false,
  pixPayload: null,
  pixImage: null,
  billetLine: null,
  billetBarcode: null,
  billetUrl: null,
  paymentUrl: null,
  dueDate: null,
  cardBrand: null,
  cardLast4: null,
  failureReason: null,
  unknownSince: null,
  attentionReason: null,
  duplicateOf: null,
  nextCheckAt: null,
  rawSnapshot: null,
};

/** The fields each state is written with. */
interface CreationFields {
  pending: Record<string, never>;
  unknown: { unknownSince?: Date; attentionReason?: string };
  created: {
    gatewayId: string;
    gatewayUuid: string | null;
    gatewayInvoiceId: string | null;
    attentionReason: null;
    amountMismatch?: boolean;
    failureReason?: string | null;
    duplicateOf?: string;
    updatedAt?: Date;
  };
  failed: { openOrderId: null; failureReason: string; attentionReason?: null };
}

/** The states the row must be in (compare-and-set), and what the move writes. */
export interface CreationMove {
  from: InvoiceCreationState[];
  patch: Partial<InvoiceRecord>;
}

/** Throws for a move the table does not list (a bug of the module). */
export function creationMove<T extends InvoiceCreationState>(
  from: readonly InvoiceCreationState[],
  to: T,
  fields: CreationFields[T],
): CreationMove {
  const refused = from.filter((state) => !CREATION_MOVES[to].includes(state));
  if (from.length === 0 || refused.length > 0)
    throw new Error(`creation state: no move from ${refused.join(', ') || 'nothing'} to ${to}`);
  return { from: [...from], patch: { ...fields, creationState: to } };
}
