import type { FindManyOptions, FindOptionsSelect, ObjectLiteral, Repository } from 'typeorm';
import type { Page } from '../gateway/types';

/** `page` (from 1) and `limit` of an admin list; the DTOs bound them. */
export interface PageQuery {
  page?: number;
  limit?: number;
}

/** Items per page when the query gives no `limit`. */
export const DEFAULT_PAGE_LIMIT = 20;

/** Past this many matching rows a list's total is given as "10 000+" (`totalCapped`): never a full `COUNT`. */
export const TOTAL_CAP = 10_000;

/** A page whose `total` counts up to {@link TOTAL_CAP}; `totalCapped`: there are more (`pages` is then a lower bound). */
export interface CountedPage<V> extends Page<V> {
  totalCapped: boolean;
}

/** A page of a list read by keyset: `nextCursor` continues the list after its last item (`null` on the last page). */
export interface KeysetPage<V> extends CountedPage<V> {
  nextCursor: string | null;
}

/** One page of `repo.find(options)` by offset, each row mapped by `view` (the Operations tab's lists). */
export async function findPage<E extends ObjectLiteral & { id: string }, V>(
  repo: Repository<E>,
  query: PageQuery,
  options: FindManyOptions<E>,
  view: (row: E) => V,
): Promise<CountedPage<V>> {
  const page = query.page ?? 1;
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  const select = { id: true } as FindOptionsSelect<E>;
  const [rows, matching] = await Promise.all([
    repo.find({ ...options, skip: (page - 1) * limit, take: limit }),
    repo.find({ where: options.where, select, take: TOTAL_CAP + 1 }),
  ]);
  return countedPage(rows.map(view), page, limit, matching.length);
}

/** The page envelope of `items` when `matched` rows match (counted up to {@link TOTAL_CAP} or beyond). */
export function countedPage<V>(items: V[], page: number, limit: number, matched: number): CountedPage<V> {
  const total = Math.min(matched, TOTAL_CAP);
  return { items, page, limit, total, pages: Math.ceil(total / limit), totalCapped: matched > TOTAL_CAP };
}

/** A list position (the last item's creation instant and id), opaque to clients: base64url. */
export function encodeCursor(at: { createdAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([at.createdAt, at.id])).toString('base64url');
}

/** The position a cursor names, or `null` when it is not one this API gave out. */
export function decodeCursor(cursor: string): { createdAt: string; id: string } | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || id.length === 0 || id.length > 36)
      return null;
    if (Number.isNaN(Date.parse(createdAt)) || new Date(createdAt).toISOString() !== createdAt) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}
