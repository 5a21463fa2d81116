import type { FindManyOptions, ObjectLiteral, Repository } from 'typeorm';
import type { Page } from '../gateway/types';

/** `page` (from 1) and `limit` of an admin list; the DTOs bound them. */
export interface PageQuery {
  page?: number;
  limit?: number;
}

/** Items per page when the query gives no `limit`. */
export const DEFAULT_PAGE_LIMIT = 20;

/** One page of `repo.findAndCount(options)`, each row mapped by `view`: the admin lists' one way to page. */
export async function findPage<E extends ObjectLiteral, V>(
  repo: Repository<E>,
  query: PageQuery,
  options: FindManyOptions<E>,
  view: (row: E) => V,
): Promise<Page<V>> {
  const page = query.page ?? 1;
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  const [rows, total] = await repo.findAndCount({ ...options, skip: (page - 1) * limit, take: limit });
  return { items: rows.map(view), page, limit, total, pages: Math.ceil(total / limit) };
}
