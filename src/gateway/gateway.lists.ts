import { MAX_PAGE_SIZE } from './constants';
import { LIST_INVOICES, listInvoicesRules, lookupInput, PAGE_QUERY } from './dto/inputs';
import { validateInput } from './dto/validators';
import { GatewayNotFoundError, GatewayResponseError } from './errors';
import { type CallContext, GatewayClientBase, type HttpAnswer, type Planned, ref } from './gateway.base';
import { invoiceAnswer, readInvoice } from './invoice.normalizer';
import { isLastPage, type PayloadReader, readConsumer, readDispute, readPage } from './payload.reader';
import type { Consumer, Dispute, Invoice, ListInvoicesParams, Page } from './types';
import {
  DEFAULT_LOOKUP_MAX_PAGES,
  renderPath,
  valueAt,
  type WireListProfile,
  type WireProfile,
} from './wire-profile';

type Filters = ListInvoicesParams & { id?: string };
const FILTERS = ['status', 'referrer', 'paymentId', 'createdFrom', 'createdTo', 'id'] as const;

export abstract class GatewayLists extends GatewayClientBase {
  /** One page of invoices (A7), oldest first. `limit` 1..100, default 100. */
  async listInvoices(params: ListInvoicesParams = {}): Promise<Page<Invoice>> {
    const operation = 'listInvoices';
    const ctx = await this.context(operation);
    const filters = this.listFilters(operation, undefined, params);
    return this.page({ operation }, 'invoices', filters, readInvoice, ctx);
  }

  /** Every invoice matching the filters, fetched one page at a time as the iteration advances. */
  iterateInvoices(params: Omit<ListInvoicesParams, 'page'> = {}): AsyncIterableIterator<Invoice> {
    return this.invoicePages('iterateInvoices', undefined, params);
  }

  /** The latest invoice whose `referrer` is exactly `referrer` (narrowed by `payment.id`, number), or `null`. */
  async findInvoiceByReferrer(
    referrer: string,
    options: { paymentId?: string; id?: string } = {},
  ): Promise<Invoice | null> {
    const matches = (inv: Invoice) =>
      inv.referrer === referrer && (options.id === undefined || inv.id === options.id);
    return this.lookup('findInvoiceByReferrer', 'referrer', referrer, matches, options.paymentId);
  }

  /** The invoice whose number or `invoice_id` is `id`, or `null`. */
  async findInvoiceById(id: string): Promise<Invoice | null> {
    return this.lookup('findInvoiceById', 'id', id, (inv) => inv.id === id || inv.invoiceId === id);
  }

  /** One page of customers (A10). */
  async listConsumers(params: { page?: number; limit?: number } = {}): Promise<Page<Consumer>> {
    return this.listOf('consumers', params, readConsumer);
  }

  /** One page of mediations (A10). */
  async listMediations(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('mediations', params, readDispute);
  }

  /** One page of chargebacks (A10). */
  async listChargebacks(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('chargebacks', params, readDispute);
  }

  /** One invoice by `key` as the profile's lookup says; `paymentId` goes to the service (invoices do not carry it). */
  protected async lookup(
    operation: string,
    key: 'referrer' | 'id',
    value: string,
    matches: (invoice: Invoice) => boolean,
    paymentId?: string,
  ): Promise<Invoice | null> {
    const invoiceRef = ref(key, value);
    const given = { [key]: value, ...(paymentId === undefined ? {} : { paymentId }) };
    validateInput(lookupInput(Object.keys(given)), given, { operation });
    const ctx = await this.context(operation);
    const plan = ctx.profile.lookup[key === 'referrer' ? 'byReferrer' : 'byId'];
    if ('get' in plan) {
      const values = { value, [key]: value, ...(paymentId === undefined ? {} : { payment_id: paymentId }) };
      const path = renderPath(plan.get, values);
      try {
        const read = (r: PayloadReader, answer: HttpAnswer, p: WireProfile) =>
          invoiceAnswer(r, { body: valueAt(answer.body, plan.at ?? '') }, p);
        const get = (): Planned => ({ method: 'GET', path, safety: 'read' });
        const invoice = await this.call({ operation, invoiceRef }, get, read, true, ctx);
        return matches(invoice) ? invoice : null;
      } catch (err) {
        if (err instanceof GatewayNotFoundError) return null;
        throw err;
      }
    }
    const filters = { ...(paymentId === undefined ? {} : { paymentId }), [plan.list]: value };
    let found: Invoice | null = null;
    const maxPages = plan.maxPages ?? DEFAULT_LOOKUP_MAX_PAGES;
    for await (const invoice of this.invoicePages(operation, invoiceRef, filters, maxPages, ctx)) {
      if (matches(invoice)) found = invoice;
    }
    return found;
  }

  protected async *invoicePages(
    operation: string,
    invoiceRef: string | undefined,
    params: Omit<Filters, 'page'>,
    maxPages = Number.POSITIVE_INFINITY,
    given?: CallContext,
  ): AsyncGenerator<Invoice> {
    const filters = this.listFilters(operation, invoiceRef, params);
    const ctx = given ?? (await this.context(operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        const detail = `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`;
        throw new GatewayResponseError({ operation, invoiceRef, sent: true }, detail);
      }
      const result = await this.page(
        { operation, invoiceRef },
        'invoices',
        { ...filters, page },
        readInvoice,
        ctx,
      );
      yield* result.items;
      if (isLastPage({ ...result, page })) return;
    }
  }

  /** `id` passes through: a lookup's filter, checked by the caller. */
  protected listFilters(operation: string, invoiceRef: string | undefined, params: Filters): Filters {
    const { id, ...filters } = params;
    const dto = validateInput<Filters>(LIST_INVOICES, filters, { operation, invoiceRef }, listInvoicesRules);
    return id === undefined ? dto : Object.assign(dto, { id });
  }

  /** One page of a list other than invoices, as `list<Kind>`. */
  protected listOf<T>(
    kind: 'consumers' | 'mediations' | 'chargebacks',
    params: { page?: number; limit?: number },
    readItem: (r: PayloadReader, item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const operation = `list${kind[0].toUpperCase()}${kind.slice(1)}`;
    return this.page({ operation }, kind, validateInput(PAGE_QUERY, params, { operation }), readItem);
  }

  /** One page of `kind` with validated `filters`, under the profile's parameter names. */
  protected page<T>(
    context: { operation: string; invoiceRef?: string },
    kind: keyof WireListProfile['items'],
    filters: Filters,
    readItem: (r: PayloadReader, item: unknown, path: string, profile: WireProfile) => T,
    ctx?: CallContext,
  ): Promise<Page<T>> {
    const asked = { page: filters.page ?? 1, limit: filters.limit ?? MAX_PAGE_SIZE };
    const plan = ({ list, paths }: WireProfile): Planned => {
      const query: Record<string, string | number> = {
        [list.query.page]: asked.page,
        [list.query.limit]: asked.limit,
      };
      for (const key of FILTERS) if (filters[key] !== undefined) query[list.query[key]] = filters[key];
      return { method: 'GET', path: paths[kind], query, safety: 'read' };
    };
    return this.call(
      context,
      plan,
      (r, answer, p) =>
        readPage(r, answer.body, p.list, p.list.items[kind], asked, (item, at) => readItem(r, item, at, p)),
      true,
      ctx,
    );
  }
}
