import type { DataSource, EntityManager } from 'typeorm';
import { escapeQuery, queryReturning } from '../core/typeorm-compat';
import type { PaymentMethod } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { CLAIMED_STATE } from './creation-states';
import type { RecognisedOrder } from './client-mapping';
import { invoiceReferrer } from './order-mapping';

/** What a new attempt row starts with. */
export interface ClaimInput {
  orderId: string;
  reference: string;
  method: PaymentMethod;
  currency: string;
  amountCents: number;
  installments: number;
  /** Order number and customer to show and search (the document masked). */
  shown?: RecognisedOrder;
  /** The installation's referrer namespace (`''`: none). */
  namespace: string;
  /** Until when the attempt's create request could still land at the service (see `InvoiceRecord.settlesAt`). */
  settlesAt: Date;
}

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

/** The next attempt's referrer without its number: the INSERT appends the number it computes. */
function referrerPrefix(input: ClaimInput): string {
  return invoiceReferrer(input.reference, 0, input.namespace).slice(0, -1);
}

/**
 * Inserts the order's next attempt (the order's last + 1) as a `pending` row holding `open_order_id`, and returns
 * it as written; `null` when the order has an open attempt, so a new order's checkout needs no lookup first. The
 * unique `open_order_id` (and `referrer`) is the guard of "created once": of two callers that both found the order
 * free, the loser gets a unique violation. A new order first tries attempt 1 without the aggregate (PostgreSQL plans
 * it in a fraction of the time); when that writes nothing, the general statement decides.
 */
export async function insertNextAttempt(
  em: EntityManager,
  dataSource: DataSource,
  id: string,
  input: ClaimInput,
  now: Date,
): Promise<InvoiceRecord | null> {
  const table = dataSource.getMetadata(InvoiceRecord).tableName;
  const shown = {
    displayId: input.shown?.displayId ?? null,
    customerName: input.shown?.customerName ?? null,
    customerEmail: input.shown?.customerEmail ?? null,
    customerDocument: input.shown?.customerDocument ?? null,
  };
  const prefix = referrerPrefix(input);
  const params = {
    id,
    orderId: input.orderId,
    prefix,
    firstReferrer: `${prefix}1`,
    method: input.method,
    currency: input.currency,
    amountCents: input.amountCents,
    installments: input.installments,
    ...shown,
    settlesAt: input.settlesAt.toISOString(),
    now: now.toISOString(),
  };
  const columns =
    `INSERT INTO ${table} (id, order_id, open_order_id, attempt, referrer, creation_state, method, currency, ` +
    'amount_cents, installments, display_id, customer_name, customer_email, customer_document, settles_at, ' +
    'created_at, updated_at, version) ';
  // Every value is cast (PostgreSQL types a bare SELECT-list parameter as text); text as TEXT, never VARCHAR(n),
  // whose explicit cast would truncate where the column refuses.
  const values = (attempt: string, referrer: string) =>
    `SELECT CAST(:id AS TEXT), CAST(:orderId AS TEXT), CAST(:orderId AS TEXT), ${attempt}, ${referrer}, '${CLAIMED_STATE}', ` +
    'CAST(:method AS TEXT), CAST(:currency AS TEXT), CAST(:amountCents AS BIGINT), ' +
    'CAST(:installments AS INTEGER), CAST(:displayId AS TEXT), CAST(:customerName AS TEXT), ' +
    'CAST(:customerEmail AS TEXT), CAST(:customerDocument AS TEXT), ' +
    'CAST(:settlesAt AS TEXT), CAST(:now AS TEXT), CAST(:now AS TEXT), 1 ';
  // Only for an order with no row at all: a changed referrer prefix must not give an order a second attempt 1.
  const first =
    columns +
    values('1', 'CAST(:firstReferrer AS TEXT)') +
    `WHERE NOT EXISTS (SELECT 1 FROM ${table} o WHERE o.order_id = :orderId) ` +
    'ON CONFLICT DO NOTHING RETURNING attempt, referrer';
  const next =
    columns +
    values('n.next_attempt', 'CAST(:prefix AS TEXT) || CAST(n.next_attempt AS TEXT)') +
    `FROM (SELECT COALESCE(MAX(attempt), 0) + 1 AS next_attempt FROM ${table} WHERE order_id = :orderId) n ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${table} o WHERE o.open_order_id = :orderId) RETURNING attempt, referrer`;
  const run = (sql: string) => queryReturning(em, ...escapeQuery(dataSource, sql, params));
  const written = (await run(first))[0] ?? (await run(next))[0];
  if (!written) return null;
  // Assigned in two steps: a literal spreading BLANK builds a new object shape per call (about 30 µs).
  return Object.assign(Object.assign(new InvoiceRecord(), BLANK), {
    id,
    orderId: input.orderId,
    openOrderId: input.orderId,
    attempt: Number(written.attempt),
    referrer: String(written.referrer),
    creationState: CLAIMED_STATE,
    method: input.method,
    currency: input.currency,
    amountCents: input.amountCents,
    installments: input.installments,
    ...shown,
    settlesAt: input.settlesAt,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
}

/**
 * After a refused claim: the other order's record holding the referrer this order's next attempt would get (the
 * caller reused an order reference), or `null` when the order itself is held (another caller claimed it).
 */
export function foreignReferrerOwner(
  dataSource: DataSource,
  input: ClaimInput,
): Promise<InvoiceRecord | null> {
  const table = dataSource.getMetadata(InvoiceRecord).tableName;
  return dataSource
    .getRepository(InvoiceRecord)
    .createQueryBuilder('r')
    .where('r.orderId <> :orderId', { orderId: input.orderId })
    .andWhere(
      'r.referrer = CAST(:prefix AS TEXT) || CAST((SELECT COALESCE(MAX(o.attempt), 0) + 1 ' +
        `FROM ${table} o WHERE o.order_id = :orderId) AS TEXT)`,
      { prefix: referrerPrefix(input) },
    )
    .getOne();
}
