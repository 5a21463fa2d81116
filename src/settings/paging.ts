import type { FindManyOptions, FindOptionsSelect, ObjectLiteral, Repository } from 'typeorm';
import type { Page } from '../gateway/types';
import type { PageQueryDto } from './admin.dto';

export const DEFAULT_PAGE_LIMIT = 20;

/** Never a full `COUNT`: past this a total is "10 000+" (`totalCapped`). */
export const TOTAL_CAP = 10_000;

export interface CountedPage<V> extends Page<V> {
  totalCapped: boolean;
}

/** One page of `repo.find(options)` by offset, each row mapped by `view`. */
export async function findPage<E extends ObjectLiteral & { id: string }, V>(
  repo: Repository<E>,
  query: PageQueryDto,
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

export function countedPage<V>(items: V[], page: number, limit: number, matched: number): CountedPage<V> {
  const total = Math.min(matched, TOTAL_CAP);
  return { items, page, limit, total, pages: Math.ceil(total / limit), totalCapped: matched > TOTAL_CAP };
}
