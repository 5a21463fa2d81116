import type { WirePagination } from './wire.types';
import { MAX_PAGE_SIZE } from './constants';
import { localDateTime, localDay } from './dates';
import { validationFailed } from './errors';
import { toDecimalNumber } from './money';
import type { DisputeRecord, Store } from './store';
import type { SandboxInvoiceRecord } from './types';
import { FieldCheck } from './validation';

/** Page and limit of a list request (A7): page ≥ 1, limit 1..100 (default 100). */
export function parsePage(query: URLSearchParams, c: FieldCheck): { page: number; limit: number } {
  const page = intParam(query, 'page', c, 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const limit = intParam(query, 'limit', c, 1, MAX_PAGE_SIZE) ?? MAX_PAGE_SIZE;
  return { page, limit };
}

/** One page of `items` and its `pagination` block. */
export function paginate<T>(
  items: T[],
  page: number,
  limit: number,
): { items: T[]; pagination: WirePagination } {
  const start = (page - 1) * limit;
  return {
    items: items.slice(start, start + limit),
    pagination: { page, limit, total: items.length, pages: Math.ceil(items.length / limit) },
  };
}

/** Invoices matching the A7 filters (`created_from`, `created_to`: days in `zone`), oldest first, paged. */
export function listInvoices(store: Store, query: URLSearchParams, zone: string) {
  const c = new FieldCheck();
  const { page, limit } = parsePage(query, c);
  const status = intParam(query, 'status', c, 0, 999);
  const from = dayParam(query, 'created_from', c);
  const to = dayParam(query, 'created_to', c);
  if (Object.keys(c.errors).length) throw validationFailed(c.errors);
  const referrer = query.get('referrer');
  const paymentId = query.get('payment_id');
  const id = query.get('id');
  const matches = [...store.invoices.values()].filter((inv: SandboxInvoiceRecord) => {
    const day = localDay(new Date(inv.createdAt), zone);
    return (
      (status === undefined || inv.statusCode === status) &&
      (referrer === null || inv.referrer === referrer) &&
      (paymentId === null || inv.paymentId === paymentId) &&
      (id === null || inv.id === id || inv.invoiceId === id) &&
      (from === undefined || day >= from) &&
      (to === undefined || day <= to)
    );
  });
  return paginate(
    matches.sort((a, b) => a.seq - b.seq),
    page,
    limit,
  );
}

/** Consumers (A10), oldest first. */
export function listConsumers(store: Store, query: URLSearchParams, zone: string) {
  const c = new FieldCheck();
  const { page, limit } = parsePage(query, c);
  c.done();
  const all = [...store.consumers.values()].sort((a, b) => a.id.localeCompare(b.id));
  const { items, pagination } = paginate(all, page, limit);
  return {
    items: items.map((x) => ({
      id: x.id,
      name: x.name,
      document: x.document,
      email: x.email,
      created_at: localDateTime(new Date(x.createdAt), zone),
    })),
    pagination,
  };
}

/** Mediations or chargebacks (A10), oldest first. */
export function listDisputes(
  store: Store,
  kind: DisputeRecord['kind'],
  query: URLSearchParams,
  zone: string,
) {
  const c = new FieldCheck();
  const { page, limit } = parsePage(query, c);
  c.done();
  const all = [...store.disputes.values()]
    .filter((d) => d.kind === kind)
    .sort((a, b) => a.id.localeCompare(b.id));
  const { items, pagination } = paginate(all, page, limit);
  return {
    items: items.map((d) => ({
      id: d.id,
      invoice_id: d.invoiceId,
      status: d.status,
      reason: d.reason,
      amount: toDecimalNumber(d.amountCents),
      created_at: localDateTime(new Date(d.createdAt), zone),
    })),
    pagination,
  };
}

function intParam(
  query: URLSearchParams,
  name: string,
  c: FieldCheck,
  min: number,
  max: number,
): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) return c.fail(name, 'must be an integer') ?? undefined;
  const n = Number(raw);
  if (n < min || n > max) return c.fail(name, `must be between ${min} and ${max}`) ?? undefined;
  return n;
}

function dayParam(query: URLSearchParams, name: string, c: FieldCheck): string | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const v = c.day({ [name]: raw }, name, name);
  return typeof v === 'string' ? v : undefined;
}
