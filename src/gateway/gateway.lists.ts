import { MAX_PAGE_SIZE } from './constants';
import * as inputs from './dto/inputs';
import { validateInput } from './dto/validators';
import { GatewayNotFoundError, GatewayResponseError } from './errors';
import type { CallContext, Context, GatewayTransport, Planned, Read } from './gateway.transport';
import { ref } from './gateway.transport';
import { invoiceAnswer, readInvoice } from './invoice.normalizer';
import { valueAt } from './json';
import * as readers from './payload.reader';
import type * as T from './types';
import { DEFAULT_LOOKUP_MAX_PAGES, renderPath, type WireListProfile, type WireProfile } from './wire-profile';

export type Filters = T.ListInvoicesParams & { id?: string };
/** A list's query parameters, in the order they are sent. */
const QUERY = ['page', 'limit', 'status', 'referrer', 'paymentId', 'createdFrom', 'createdTo', 'id'] as const;

/** The service's lists (A7, A10) under the profile's parameter names: one page, every page, one invoice found. */
export class GatewayLists {
  constructor(private readonly transport: GatewayTransport) {}

  /** One invoice by `key` as the profile's lookup says; `paymentId` goes to the service (invoices do not carry it). */
  async lookup(
    operation: string,
    key: 'referrer' | 'id',
    value: string,
    matches: (invoice: T.Invoice) => boolean,
    paymentId?: string,
  ): Promise<T.Invoice | null> {
    const context = { operation, invoiceRef: ref(key, value) };
    const byPayment = paymentId === undefined ? {} : { paymentId };
    const given = { [key]: value, ...byPayment };
    validateInput(inputs.lookupInput(Object.keys(given)), given, { operation });
    const ctx = await this.transport.context(operation);
    const plan = ctx.profile.lookup[key === 'referrer' ? 'byReferrer' : 'byId'];
    if ('get' in plan) {
      const values: Record<string, string> = { value, [key]: value };
      if (paymentId !== undefined) values.payment_id = paymentId;
      const get = (): Planned => ({ method: 'GET', path: renderPath(plan.get, values), safety: 'read' });
      const read: Read<T.Invoice> = (r, answer, p) =>
        invoiceAnswer(r, { body: valueAt(answer.body, plan.at ?? '') }, p);
      const invoice = await this.transport.call(context, get, read, true, ctx).catch((err: unknown) => {
        if (err instanceof GatewayNotFoundError) return null;
        throw err;
      });
      return invoice && matches(invoice) ? invoice : null;
    }
    const filters = { ...byPayment, [plan.list]: value };
    const pages = this.invoicePages(context, filters, plan.maxPages ?? DEFAULT_LOOKUP_MAX_PAGES, ctx);
    let found: T.Invoice | null = null;
    for await (const invoice of pages) {
      if (matches(invoice)) found = invoice;
    }
    return found;
  }

  /** Invoices page after page; fields of `params` the rules do not name (a lookup's `id`) pass as filters. */
  async *invoicePages(
    context: Context,
    params: Omit<Filters, 'page'>,
    maxPages = Number.POSITIVE_INFINITY,
    given?: CallContext,
  ): AsyncGenerator<T.Invoice> {
    const filters = validateInput<Filters>(inputs.LIST_INVOICES, params, context, inputs.listInvoicesRules);
    const ctx = given ?? (await this.transport.context(context.operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        const detail = `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`;
        throw new GatewayResponseError({ ...context, sent: true }, detail);
      }
      const one = await this.page(context, 'invoices', { ...filters, page }, readInvoice, ctx);
      yield* one.items;
      if (readers.isLastPage({ ...one, page })) return;
    }
  }

  /** One page of `kind` under the profile's parameter names; its paging checked here, other filters by the caller. */
  page<Item>(
    context: Context,
    kind: keyof WireListProfile['items'],
    filters: Filters,
    readItem: (r: readers.PayloadReader, item: unknown, path: string, profile: WireProfile) => Item,
    ctx?: CallContext,
  ): Promise<T.Page<Item>> {
    validateInput(inputs.PAGE_QUERY, filters, context);
    const asked = { page: filters.page ?? 1, limit: filters.limit ?? MAX_PAGE_SIZE };
    const values: Filters = { ...filters, ...asked };
    const plan = ({ list, paths }: WireProfile): Planned => {
      const query: Record<string, string | number> = {};
      for (const key of QUERY) {
        if (values[key] !== undefined) query[list.query[key]] = values[key];
      }
      return { method: 'GET', path: paths[kind], query, safety: 'read' };
    };
    const read: Read<T.Page<Item>> = (r, answer, p) => {
      const item = (value: unknown, at: string) => readItem(r, value, at, p);
      return readers.readPage(r, answer.body, p.list, p.list.items[kind], asked, item);
    };
    return this.transport.call(context, plan, read, true, ctx);
  }
}
