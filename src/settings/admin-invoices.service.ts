import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { And, DataSource, FindOptionsWhere, In, LessThan, MoreThanOrEqual, Raw, Repository } from 'typeorm';
import { allowedActions, refundableCents, type InvoiceAction } from '../checkout/invoice-actions';
import { statusRow } from '../core/status-table';
import type { Page } from '../gateway/types';
import { INVOICE_STATUS_NAMES, isKnownStatusCode } from '../gateway/status';
import { InvoiceRecord, type InvoiceCreationState } from '../persistence/invoice.entity';
import { findPage, type PageQuery } from './paging';
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

export interface AdminInvoiceQuery extends PageQuery {
  status?: number;
  orderId?: string;
  method?: 'pix' | 'billet' | 'card';
  creationState?: InvoiceCreationState;
  /** ISO-8601 instants: created at or after `createdFrom`, before `createdBefore`. */
  createdFrom?: string;
  createdBefore?: string;
  /** Text searched (case-insensitive, part of) in the order id and number, customer name and e-mail, invoice number. */
  q?: string;
}

/** Columns `q` searches. */
const SEARCHED: ReadonlyArray<keyof InvoiceRecord> = [
  'orderId',
  'displayId',
  'customerName',
  'customerEmail',
  'gatewayId',
];

/** `q` as a LIKE pattern: lower-cased, its own `%`, `_` and `\` taken literally. */
function likePattern(q: string): string {
  return `%${q
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The local invoice records, paged, newest first. */
@Injectable()
export class AdminInvoicesService {
  private readonly invoices: Repository<InvoiceRecord>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.invoices = dataSource.getRepository(InvoiceRecord);
  }

  async list(query: AdminInvoiceQuery): Promise<Page<AdminInvoiceView>> {
    const where: FindOptionsWhere<InvoiceRecord> = {};
    if (query.status !== undefined) where.statusCode = query.status;
    if (query.orderId !== undefined) where.orderId = query.orderId;
    if (query.method !== undefined) where.method = query.method;
    if (query.creationState !== undefined) where.creationState = query.creationState;
    // Stored as ISO-8601 UTC text, which compares in time order.
    const from = query.createdFrom ? MoreThanOrEqual(new Date(query.createdFrom).toISOString()) : null;
    const before = query.createdBefore ? LessThan(new Date(query.createdBefore).toISOString()) : null;
    const range = from && before ? And(from, before) : (from ?? before);
    if (range) where.createdAt = range as unknown as Date;
    const order = { createdAt: 'DESC', id: 'ASC' } as const;
    if (!query.q?.trim()) return findPage(this.invoices, query, { where, order }, toView);
    // One condition per searched column, each with the other filters: OR of ANDs.
    const pattern = likePattern(query.q);
    const search = SEARCHED.map((column) => ({
      ...where,
      [column]: Raw((alias) => `LOWER(${alias}) LIKE :pattern ESCAPE '\\'`, { pattern }),
    }));
    return findPage(this.invoices, query, { where: search, order }, toView);
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
