import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { allowedActions, refundableCents, type InvoiceAction } from '../checkout/invoice-actions';
import { statusRow } from '../core/status-table';
import type { Page } from '../gateway/types';
import { INVOICE_STATUS_NAMES, isKnownStatusCode } from '../gateway/status';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { isPostgres } from '../persistence/dialect';
import {
  countedPage,
  decodeCursor,
  DEFAULT_PAGE_LIMIT,
  encodeCursor,
  TOTAL_CAP,
  type KeysetPage,
} from './paging';
import { matchingInvoices, NAME_TRIGRAMS, type AdminInvoiceQuery } from './invoice-list.query';

export type { AdminInvoiceQuery } from './invoice-list.query';
import { adminValidationError } from './validation';
import { sessionDataOf } from '../checkout/session-data';

/** An invoice as the admin API lists it: the local record, without the raw payload. */
export interface AdminInvoiceView {
  /** Local id: the key of the admin operations (`/invoices/:id/...`). */
  id: string;
  orderId: string;
  /** The order number people know (the host's `display_id`), when the host gave one. */
  displayId: string | null;
  /** The customer as given at checkout; the document masked (`***.982.247-**`). */
  customer: { name: string | null; email: string | null; document: string | null };
  /**
   * What the invoice's state allows now (`changeDueDate`, `cancel`, `refund`), from the provider's own rules
   * (`checkout/invoice-actions.ts`): the page offers only these.
   */
  allowedActions: InvoiceAction[];
  /** Cents that can still be refunded (paid minus refunded); 0 when the invoice cannot be refunded now. */
  refundableCents: number;
  attempt: number;
  method: 'pix' | 'billet' | 'card';
  creationState: string;
  /** The service's invoice number and `invoice_id`. */
  gatewayId: string | null;
  gatewayInvoiceId: string | null;
  statusCode: number | null;
  statusText: string | null;
  /** The spec's name of the code (§3), `null` for unlisted codes. */
  statusName: string | null;
  /** What the code means for the order (the status table). */
  orderPaymentStatus: string | null;
  currency: string;
  amountCents: number;
  paidCents: number | null;
  refundedCents: number;
  amountMismatch: boolean;
  dueDate: string | null;
  installments: number;
  card: { brand: string | null; last4: string | null } | null;
  billetLine: string | null;
  billetBarcode: string | null;
  billetUrl: string | null;
  /** PIX copy-and-paste code (what the customer's bank app reads). */
  pixPayload: string | null;
  paymentUrl: string | null;
  failureReason: string | null;
  /** The creation's outcome is being confirmed until then (`pending`/`unknown`); nothing new is created before. */
  confirmingUntil: string | null;
  /** Why the module stopped deciding on its own: resolve with `recheck` or `mark-not-created`. */
  attentionReason: string | null;
  /** The record of the order's invoice this one duplicates (canceled, or paid and alerted). */
  duplicateOf: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The local invoice records, newest first, a page at a time by keyset. */
@Injectable()
export class AdminInvoicesService implements OnApplicationBootstrap {
  private readonly logger = new Logger('InvoicePaymentsAdmin');
  private readonly invoices: Repository<InvoiceRecord>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.invoices = dataSource.getRepository(InvoiceRecord);
  }

  /**
   * Says once, at start, when PostgreSQL lacks the name's trigram index (no `pg_trgm` when the migration ran): every
   * search `q` then scans the invoice table (seconds at a million invoices). One catalog read during the start, so an
   * idle store makes no query of its own afterwards; a failure to read it never fails the start.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.checkNameIndex().catch(() => undefined);
  }

  /** Whether the name's index is there (always on SQLite); warns when it is not. */
  async checkNameIndex(): Promise<boolean> {
    if (!isPostgres(this.dataSource)) return true;
    const rows = (await this.dataSource.query('SELECT 1 FROM pg_indexes WHERE indexname = $1', [
      NAME_TRIGRAMS,
    ])) as unknown[];
    if (rows.length > 0) return true;
    this.logger.warn(
      `the admin search has no index for customer names (${NAME_TRIGRAMS}: pg_trgm was not available): ` +
        'each search scans the invoice table; see docs/admin.md (Search at scale) to create it',
    );
    return false;
  }

  /**
   * One page of the list, newest first (ties by id), each filter an index range (migration
   * InvoicePaymentsScaleIndexes): after `cursor` when given (a keyset read: as fast on page 500 as on page 1), else
   * at `page` by offset. The total is counted up to {@link TOTAL_CAP}.
   */
  async list(query: AdminInvoiceQuery): Promise<KeysetPage<AdminInvoiceView>> {
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
    const page = query.page ?? 1;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after) {
      throw adminValidationError({ cursor: ['cursor must be a nextCursor this list gave'] });
    }
    const matching = matchingInvoices(this.dataSource, query);
    const counted = matching
      .clone()
      .select('1', 'one')
      .orderBy()
      .limit(TOTAL_CAP + 1);
    const [countSql, countParams] = counted.getQueryAndParameters();
    const rows = matching
      .orderBy('i.createdAt', 'DESC')
      .addOrderBy('i.id', 'DESC')
      .limit(limit + 1);
    if (after) {
      // A row comparison: an index range on (created_at, id), not a filter over the rows before it.
      rows.andWhere('(i.createdAt, i.id) < (:afterAt, :afterId)', {
        afterAt: after.createdAt,
        afterId: after.id,
      });
    } else if (page > 1) {
      rows.offset((page - 1) * limit);
    }
    const [found, countRows] = await Promise.all([
      rows.getMany(),
      this.dataSource.query(`SELECT COUNT(*) AS n FROM (${countSql}) matching`, countParams) as Promise<
        Array<{ n: string | number }>
      >,
    ]);
    const items = found.slice(0, limit);
    const last = items[items.length - 1];
    return {
      ...countedPage(items.map(toView), page, limit, Number(countRows[0]?.n ?? 0)),
      nextCursor:
        found.length > limit && last
          ? encodeCursor({ createdAt: last.createdAt.toISOString(), id: last.id })
          : null,
    };
  }

  /**
   * Adds the order's number (`displayId`) to rows that name an invoice record (tracking codes, alerts), so the page
   * shows the order as people know it. One query per page.
   */
  async withDisplayIds<T extends { invoiceRecordId: string | null }>(
    page: Page<T>,
  ): Promise<Page<T & { displayId: string | null }>> {
    const ids = [...new Set(page.items.map((i) => i.invoiceRecordId).filter((id): id is string => !!id))];
    const rows = ids.length
      ? await this.invoices.find({ where: { id: In(ids) }, select: { id: true, displayId: true } })
      : [];
    const numbers = new Map(rows.map((r) => [r.id, r.displayId]));
    const items = page.items.map((i) => ({
      ...i,
      displayId: (i.invoiceRecordId && numbers.get(i.invoiceRecordId)) || null,
    }));
    return { ...page, items };
  }

  /** One record, or `null`. */
  async find(id: string): Promise<AdminInvoiceView | null> {
    const row = await this.invoices.findOneBy({ id });
    return row ? toView(row) : null;
  }
}

export function toView(row: InvoiceRecord): AdminInvoiceView {
  const code = row.statusCode;
  const actions = allowedActions(row);
  return {
    id: row.id,
    orderId: row.orderId,
    displayId: row.displayId,
    customer: { name: row.customerName, email: row.customerEmail, document: row.customerDocument },
    allowedActions: actions,
    refundableCents: actions.includes('refund') ? refundableCents(row) : 0,
    attempt: row.attempt,
    method: row.method,
    creationState: row.creationState,
    gatewayId: row.gatewayId,
    gatewayInvoiceId: row.gatewayInvoiceId,
    statusCode: code,
    statusText: row.statusText,
    statusName: code !== null && isKnownStatusCode(code) ? INVOICE_STATUS_NAMES[code] : null,
    orderPaymentStatus: statusRow(code)?.order ?? null,
    currency: row.currency,
    amountCents: row.amountCents,
    paidCents: row.paidCents,
    refundedCents: row.refundedCents,
    amountMismatch: row.amountMismatch,
    dueDate: row.dueDate,
    installments: row.installments,
    card: row.cardBrand || row.cardLast4 ? { brand: row.cardBrand, last4: row.cardLast4 } : null,
    billetLine: row.billetLine,
    billetBarcode: row.billetBarcode,
    billetUrl: row.billetUrl,
    pixPayload: row.pixPayload,
    paymentUrl: row.paymentUrl,
    failureReason: row.failureReason,
    confirmingUntil: sessionDataOf(row).confirmingUntil,
    attentionReason: sessionDataOf(row).attentionReason,
    duplicateOf: row.duplicateOf,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
