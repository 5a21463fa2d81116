import { MAX_PAGE_SIZE } from './constants';
import { ListInvoicesDto, listInvoicesRules, PageQueryDto } from './dto/query.dto';
import { validateInput } from './dto/validate';
import { isNonBlank } from './dto/validators';
import { GatewayNotFoundError, GatewayResponseError, GatewayValidationError } from './errors';
import type { GatewayConnection } from './gateway.options';
import { normalizeInvoice } from './invoice.normalizer';
import { PayloadReader } from './payload.reader';
import { toWireListQuery } from './request.mapper';
import { isLastPage, readPage } from './response.readers';
import type { Invoice, ListInvoicesParams, Page } from './types';
import { DEFAULT_LOOKUP_MAX_PAGES, InvoiceLookup, valueAt, WireProfile } from './wire-profile';
import { renderPath } from './wire-template';
import { GatewayCore, ref } from './gateway.core';

/** List filters whose only rule is "a non-blank string": what `lookup` checks before it sends anything. */
const TEXT_FILTERS: ReadonlySet<string> = new Set(['id', 'referrer', 'paymentId']);

/** The list filters validated (`id` passes through: a lookup's invoice-number filter, checked by the caller). */
function listFilters<P extends ListInvoicesParams & { id?: string }>(
  operation: string,
  invoiceRef: string | undefined,
  params: P,
): ListInvoicesDto & { id?: string } {
  const { id, ...filters } = params;
  const dto = validateInput(ListInvoicesDto, filters, { operation, invoiceRef }, listInvoicesRules);
  return id === undefined ? dto : Object.assign(dto, { id });
}

export class GatewayPages {
  constructor(private readonly core: GatewayCore) {}

  /**
   * One invoice by `key`, as the profile's lookup plan says. `paymentId` narrows a lookup by referrer to the
   * invoices the service lists under that `payment.id` (the list filter `paymentId`, A7; `{payment_id}` in a `get`
   * path); the invoice shape does not carry `payment.id`, so the service's filter is what tells it.
   */
  async lookup(
    operation: string,
    key: 'referrer' | 'id',
    value: string,
    matches: (invoice: Invoice) => boolean,
    paymentId?: string,
  ): Promise<Invoice | null> {
    const invoiceRef = ref(key, value);
    const given: Array<[string, unknown]> = [[key, value]];
    if (paymentId !== undefined) given.push(['paymentId', paymentId]);
    for (const [name, text] of given) {
      if (!isNonBlank(text)) {
        throw new GatewayValidationError(
          { operation, sent: false },
          `invalid input: ${name} is required; nothing was sent`,
          { [name]: ['is required (a non-empty string)'] },
        );
      }
    }
    const { conn, profile } = await this.core.context(operation);
    const plan: InvoiceLookup = key === 'referrer' ? profile.lookup.byReferrer : profile.lookup.byId;
    if ('get' in plan) {
      try {
        const values = { value, [key]: value, ...(paymentId !== undefined ? { payment_id: paymentId } : {}) };
        const path = renderPath(plan.get, values);
        const answer = await this.core.send(
          { operation, invoiceRef, method: 'GET', path, safety: 'read' },
          conn,
        );
        const body = plan.at ? valueAt(answer.body, plan.at) : answer.body;
        const invoice = this.core.invoiceFrom(body, operation, invoiceRef, profile);
        return matches(invoice) ? invoice : null;
      } catch (err) {
        if (err instanceof GatewayNotFoundError) return null;
        throw err;
      }
    }
    const filter = {
      ...(paymentId !== undefined ? { paymentId } : {}),
      [plan.list]: value,
    } as Partial<Record<string, string>>;
    let found: Invoice | null = null;
    const maxPages = plan.maxPages ?? DEFAULT_LOOKUP_MAX_PAGES;
    const pages = this.invoicePages(
      operation,
      invoiceRef,
      filter,
      maxPages,
      { conn, profile },
      TEXT_FILTERS.has(plan.list),
    );
    for await (const invoice of pages) {
      if (matches(invoice)) found = invoice;
    }
    return found;
  }

  /** One page of `listInvoices`: the filters validated, then the page fetched. */
  async invoicePage(
    operation: string,
    invoiceRef: string | undefined,
    params: ListInvoicesParams,
    conn: GatewayConnection,
    profile: WireProfile,
  ): Promise<Page<Invoice>> {
    const dto = listFilters(operation, invoiceRef, params);
    return this.fetchPage(operation, invoiceRef, dto, dto.page ?? 1, conn, profile);
  }

  /**
   * Pages until the last one: `pages` when the service says it, else the first page shorter than asked. The
   * filters are validated once, before the first request; `checked` says the caller already has (a lookup's one
   * text filter).
   */
  async *invoicePages(
    operation: string,
    invoiceRef: string | undefined,
    params: Omit<ListInvoicesParams, 'page'> & { id?: string },
    maxPages = Number.POSITIVE_INFINITY,
    ctx?: { conn: GatewayConnection; profile: WireProfile },
    checked = false,
  ): AsyncGenerator<Invoice> {
    const filters = checked ? params : listFilters(operation, invoiceRef, params);
    const { conn, profile } = ctx ?? (await this.core.context(operation));
    for (let page = 1; ; page++) {
      if (page > maxPages) {
        throw new GatewayResponseError(
          { operation, invoiceRef, sent: true },
          `the lookup read ${maxPages} pages without reaching the end (lookup maxPages in the wire profile)`,
        );
      }
      const result = await this.fetchPage(operation, invoiceRef, filters, page, conn, profile);
      yield* result.items;
      if (isLastPage({ ...result, page })) return;
    }
  }

  /** One page for filters already validated; `id` is the invoice-number filter of lookups. */
  private async fetchPage(
    operation: string,
    invoiceRef: string | undefined,
    filters: ListInvoicesParams & { id?: string },
    page: number,
    conn: GatewayConnection,
    profile: WireProfile,
  ): Promise<Page<Invoice>> {
    const query = toWireListQuery({ ...filters, page }, profile.list.query);
    if (filters.id !== undefined) query[profile.list.query.id] = filters.id;
    const asked = { page, limit: filters.limit ?? MAX_PAGE_SIZE };
    const answer = await this.core.send(
      { operation, invoiceRef, method: 'GET', path: profile.paths.invoices, query, safety: 'read' },
      conn,
    );
    return this.core.read(operation, invoiceRef, (r) =>
      readPage(r, answer.body, profile.list, profile.list.items.invoices, asked, (item, path) => {
        try {
          return normalizeInvoice(item, operation, { codes: profile.codes });
        } catch (err) {
          if (err instanceof GatewayResponseError) r.fail(path, err.detail, err.implausibleAmount);
          throw err;
        }
      }),
    );
  }

  async listOf<T>(
    operation: string,
    kind: 'consumers' | 'mediations' | 'chargebacks',
    params: { page?: number; limit?: number },
    readItem: (r: PayloadReader, item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const dto = validateInput(PageQueryDto, params, { operation });
    const { conn, profile } = await this.core.context(operation);
    const asked = { page: dto.page ?? 1, limit: dto.limit ?? MAX_PAGE_SIZE };
    const query = { [profile.list.query.page]: asked.page, [profile.list.query.limit]: asked.limit };
    const path = profile.paths[kind];
    const answer = await this.core.send({ operation, method: 'GET', path, query, safety: 'read' }, conn);
    return this.core.read(operation, undefined, (r) =>
      readPage(r, answer.body, profile.list, profile.list.items[kind], asked, (item, p) =>
        readItem(r, item, p),
      ),
    );
  }
}
