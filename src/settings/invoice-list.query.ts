import { Brackets, type DataSource, type SelectQueryBuilder } from 'typeorm';
import { isPostgres } from '../persistence/dialect';
import { InvoiceRecord, type InvoiceCreationState } from '../persistence/invoice.entity';
import type { PageQuery } from './paging';

export interface AdminInvoiceQuery extends PageQuery {
  status?: number;
  orderId?: string;
  method?: 'pix' | 'billet' | 'card';
  creationState?: InvoiceCreationState;
  /** ISO-8601 instants: created at or after `createdFrom`, before `createdBefore`. */
  createdFrom?: string;
  createdBefore?: string;
  /**
   * Text searched, any case: the start of the order id, the order number, the invoice number or the e-mail, or the
   * start of the customer's name or of a word in it (after a space).
   */
  q?: string;
  /** The previous page's `nextCursor`: the page after it (the list's order, newest first). */
  cursor?: string;
}

/** Columns `q` matches from their start (any case). */
const PREFIXED = ['order_id', 'display_id', 'gateway_id', 'customer_email'] as const;

/** `q` as the start of a LIKE pattern: lower-cased, its own `%`, `_` and `\` taken literally. */
function likeText(q: string): string {
  return q
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The index `q` needs for the customer's name on PostgreSQL: trigrams, made where `pg_trgm` could be installed. */
export const NAME_TRIGRAMS = 'IDX_invoice_payments_invoice_q_name';

/**
 * The rows the admin list's filters and search select, without order or bounds: each filter is an index range
 * (migration InvoicePaymentsScaleIndexes) in the list's order.
 */
export function matchingInvoices(
  dataSource: DataSource,
  query: AdminInvoiceQuery,
): SelectQueryBuilder<InvoiceRecord> {
  const qb = dataSource.getRepository(InvoiceRecord).createQueryBuilder('i');
  if (query.status !== undefined) qb.andWhere('i.statusCode = :status', { status: query.status });
  if (query.orderId !== undefined) qb.andWhere('i.orderId = :orderId', { orderId: query.orderId });
  if (query.method !== undefined) qb.andWhere('i.method = :method', { method: query.method });
  if (query.creationState !== undefined)
    qb.andWhere('i.creationState = :creationState', { creationState: query.creationState });
  // Stored as ISO-8601 UTC text, which compares in time order.
  if (query.createdFrom)
    qb.andWhere('i.createdAt >= :from', { from: new Date(query.createdFrom).toISOString() });
  if (query.createdBefore)
    qb.andWhere('i.createdAt < :before', { before: new Date(query.createdBefore).toISOString() });
  const q = query.q?.trim() ? likeText(query.q) : null;
  if (q !== null) {
    const table = dataSource.getMetadata(InvoiceRecord).tableName;
    qb.andWhere(search(isPostgres(dataSource), table), { prefix: `${q}%`, word: `% ${q}%` });
  }
  return qb;
}

/**
 * `q`, each term served by an index. PostgreSQL: `lower(column) LIKE` (its escape is `\\` by default) on
 * `text_pattern_ops` expression indexes, and the name on its trigram index (`pg_trgm`; without it the name is
 * matched by a scan of the rows). SQLite: `LIKE` (any case for ASCII, as its `lower`) on `COLLATE NOCASE` indexes,
 * and the name by a scan of its narrow (name, id) index, not of the rows.
 */
function search(postgres: boolean, table: string): Brackets {
  const like = (alias: string, column: string, pattern: string) =>
    postgres
      ? `lower(${alias}.${column}) LIKE :${pattern}`
      : `${alias}.${column} LIKE :${pattern} ESCAPE '\\'`;
  const name = `${like('n', 'customer_name', 'prefix')} OR ${like('n', 'customer_name', 'word')}`;
  return new Brackets((or) => {
    for (const column of PREFIXED) or.orWhere(like('i', column, 'prefix'));
    if (postgres) {
      or.orWhere(like('i', 'customer_name', 'prefix')).orWhere(like('i', 'customer_name', 'word'));
    } else {
      or.orWhere(`i.id IN (SELECT n.id FROM ${table} n WHERE ${name})`);
    }
  });
}
