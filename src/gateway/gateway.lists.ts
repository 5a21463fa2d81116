import { MAX_PAGE_SIZE } from './constants';
import { LIST_INVOICES, listInvoicesRules, lookupInput, PAGE_QUERY } from './dto/inputs';
import { validateInput } from './dto/validators';
import { GatewayNotFoundError, GatewayResponseError } from './errors';
import { GatewayClientBase, ref } from './gateway.base';
import type { GatewayConnection } from './gateway.options';
import { normalizeInvoice } from './invoice.normalizer';
import type { PayloadReader } from './payload.reader';
import { isLastPage, readConsumer, readDispute, readPage } from './response.readers';
import type { Consumer, Dispute, Invoice, ListInvoicesParams, Page } from './types';
import { DEFAULT_LOOKUP_MAX_PAGES, valueAt, WireProfile } from './wire-profile';
import { renderPath } from './wire-template';

type Filters = ListInvoicesParams & { id?: string };

export abstract class GatewayLists extends GatewayClientBase {
  /** One page of invoices (A7), oldest first. `limit` 1..100, default 100. */
  async listInvoices(params: ListInvoicesParams = {}): Promise<Page<Invoice>> {
    const operation = 'listInvoices';
    const { conn, profile } = await this.context(operation);
    const filters = this.listFilters(operation, undefined, params);
    return this.invoicePage(operation, undefined, filters, conn, profile);
  }

  /** Every invoice matching the filters, fetched one page at a time as the iteration advances. */
  iterateInvoices(params: Omit<ListInvoicesParams, 'page'> = {}): AsyncIterableIterator<Invoice> {
    return this.invoicePages('iterateInvoices', undefined, params);
  }

  /**
   * The latest invoice whose `referrer` is exactly `referrer`, or `null`: resolves a lost `createInvoice`.
   * `options.paymentId`/`options.id` narrow it to that `payment.id` (A7) / invoice number.
   */
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
    return this.listOf('listConsumers', 'consumers', params, readConsumer);
  }

  /** One page of mediations (A10). */
  async listMediations(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('listMediations', 'mediations', params, readDispute);
  }

  /** One page of chargebacks (A10). */
  async listChargebacks(params: { page?: number; limit?: number } = {}): Promise<Page<Dispute>> {
    return this.listOf('listChargebacks', 'chargebacks', params, readDispute);
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
        const answer = await this.transport.send(ctx.conn, {
          operation,
          invoiceRef,
          method: 'GET',
          path,
          safety: 'read',
        });
        const body = plan.at ? valueAt(answer.body, plan.at) : answer.body;
        const invoice = this.read(operation, invoiceRef, () =>
          normalizeInvoice(body, operation, { codes: ctx.profile.codes }),
        );
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
    ctx?: { conn: GatewayConnection; profile: WireProfile },
  ): AsyncGenerator<Invoice> {
    const filters = this.listFilters(operation, invoiceRef, params);
    const { conn, profile } = ctx ?? (await this.context(operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        throw new GatewayResponseError(
          { operation, invoiceRef, sent: true },
          `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`,
        );
      }
      const result = await this.invoicePage(operation, invoiceRef, { ...filters, page }, conn, profile);
      yield* result.items;
      if (isLastPage({ ...result, page })) return;
    }
  }

  /** `id` passes through: a lookup's filter, checked by the caller. */
  protected listFilters<P extends Filters>(
    operation: string,
    invoiceRef: string | undefined,
    params: P,
  ): Filters {
    const { id, ...filters } = params;
    const dto = validateInput<Filters>(LIST_INVOICES, filters, { operation, invoiceRef }, listInvoicesRules);
    return id === undefined ? dto : Object.assign(dto, { id });
  }

  protected async invoicePage(
    operation: string,
    invoiceRef: string | undefined,
    filters: Filters,
    conn: GatewayConnection,
    profile: WireProfile,
  ): Promise<Page<Invoice>> {
    const names = profile.list.query;
    const asked = { page: filters.page ?? 1, limit: filters.limit ?? MAX_PAGE_SIZE };
    const query: Record<string, string | number> = { [names.page]: asked.page, [names.limit]: asked.limit };
    for (const key of ['status', 'referrer', 'paymentId', 'createdFrom', 'createdTo', 'id'] as const) {
      if (filters[key] !== undefined) query[names[key]] = filters[key];
    }
    const path = profile.paths.invoices;
    const answer = await this.transport.send(conn, {
      operation,
      invoiceRef,
      method: 'GET',
      path,
      query,
      safety: 'read',
    });
    return this.read(operation, invoiceRef, (r) =>
      readPage(r, answer.body, profile.list, profile.list.items.invoices, asked, (item, at) => {
        try {
          return normalizeInvoice(item, operation, { codes: profile.codes });
        } catch (err) {
          if (err instanceof GatewayResponseError) r.fail(at, err.detail, err.implausibleAmount);
          throw err;
        }
      }),
    );
  }

  protected async listOf<T>(
    operation: string,
    kind: 'consumers' | 'mediations' | 'chargebacks',
    params: { page?: number; limit?: number },
    readItem: (r: PayloadReader, item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const dto = validateInput<typeof params>(PAGE_QUERY, params, { operation });
    const asked = { page: dto.page ?? 1, limit: dto.limit ?? MAX_PAGE_SIZE };
    return this.call(
      operation,
      undefined,
      (p) => ({
        method: 'GET',
        path: p.paths[kind],
        query: { [p.list.query.page]: asked.page, [p.list.query.limit]: asked.limit },
        safety: 'read',
      }),
      (r, answer, p) =>
        readPage(r, answer.body, p.list, p.list.items[kind], asked, (item, at) => readItem(r, item, at)),
    );
  }
}
