/** The claim of an order's next attempt: one `INSERT … SELECT` whose unique open-order key guards "created once". */
import { getMetadataArgsStorage, type DataSource, type EntityManager } from 'typeorm';
import { escapeQuery, queryReturning } from '../persistence/typeorm-compat';
import type { CreateInvoiceParams } from '../gateway/types';
import { InvoiceRecord, type RecognisedOrder } from '../persistence/invoice.entity';

export interface ClaimInput extends Pick<
  InvoiceRecord,
  'orderId' | 'method' | 'currency' | 'amountCents' | 'installments'
> {
  reference: string;
  shown?: RecognisedOrder;
  /** `''`: none. */
  namespace: string;
  settlesAt: Date;
  /** The SHA-256 of the status token the claimer hands out (`status-token.ts`). */
  statusTokenHash: string;
}

/** A new row's columns as the entity defaults them, so the claimed row needs no read-back. */
export const BLANK: Partial<InvoiceRecord> = Object.fromEntries(
  getMetadataArgsStorage()
    .filterColumns(InvoiceRecord)
    .filter((column) => column.options.nullable || column.options.default !== undefined)
    .map((column) => [column.propertyName, column.options.default ?? null]),
);

/** `<namespace>:<reference>-<attempt>`: unique per attempt and store, so an unknown outcome can be looked up. */
export function invoiceReferrer(reference: string, attempt: number, namespace = ''): string {
  return namespace ? `${namespace}:${reference}-${attempt}` : `${reference}-${attempt}`;
}

export function withReferrer(params: CreateInvoiceParams, referrer: string): CreateInvoiceParams {
  return { ...params, payment: { ...params.payment, referrer } };
}

function referrerPrefix(input: ClaimInput): string {
  return invoiceReferrer(input.reference, 0, input.namespace).slice(0, -1);
}

/**
 * Inserts the order's next attempt holding `open_order_id`, whose uniqueness guards "created once". A new order first
 * tries attempt 1 without the aggregate (PostgreSQL plans it in a fraction of the time).
 */
export async function insertNextAttempt(
  em: EntityManager,
  dataSource: DataSource,
  id: string,
  input: ClaimInput,
  now: Date,
): Promise<InvoiceRecord | null> {
  const table = dataSource.getMetadata(InvoiceRecord).tableName;
  const fields = {
    id,
    orderId: input.orderId,
    method: input.method,
    currency: input.currency,
    amountCents: input.amountCents,
    installments: input.installments,
    displayId: input.shown?.displayId ?? null,
    customerName: input.shown?.customerName ?? null,
    customerEmail: input.shown?.customerEmail ?? null,
    customerDocument: input.shown?.customerDocument ?? null,
    statusTokenHash: input.statusTokenHash,
  };
  const prefix = referrerPrefix(input);
  const params = {
    ...fields,
    prefix,
    firstReferrer: `${prefix}1`,
    settlesAt: input.settlesAt.toISOString(),
    now: now.toISOString(),
  };
  const columns =
    `INSERT INTO ${table} (id, order_id, open_order_id, attempt, referrer, creation_state, method, currency, ` +
    'amount_cents, installments, display_id, customer_name, customer_email, customer_document, status_token_hash, ' +
    'settles_at, created_at, updated_at, version) ';
  // Every value is cast (PostgreSQL types a bare SELECT-list parameter as text); text as TEXT, never VARCHAR(n),
  // whose explicit cast would truncate where the column refuses.
  const values = (attempt: string, referrer: string) =>
    `SELECT CAST(:id AS TEXT), CAST(:orderId AS TEXT), CAST(:orderId AS TEXT), ${attempt}, ${referrer}, 'pending', ` +
    'CAST(:method AS TEXT), CAST(:currency AS TEXT), CAST(:amountCents AS BIGINT), ' +
    'CAST(:installments AS INTEGER), CAST(:displayId AS TEXT), CAST(:customerName AS TEXT), ' +
    'CAST(:customerEmail AS TEXT), CAST(:customerDocument AS TEXT), CAST(:statusTokenHash AS TEXT), ' +
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
    ...fields,
    openOrderId: input.orderId,
    attempt: Number(written.attempt),
    referrer: String(written.referrer),
    creationState: 'pending',
    settlesAt: input.settlesAt,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
}

/** After a refused claim: another order's record holding the referrer this attempt would get (a reused reference). */
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
