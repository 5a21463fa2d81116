import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, Repository, type SelectQueryBuilder } from 'typeorm';
import { allowedActions, refundableCents } from '../core/invoice-actions';
import { sessionDataOf } from '../core/checkout.types';
import { transitionOfRow } from '../core/status-report';
import { InvoiceStatusCode, STATUS_TABLE, statusRow } from '../domain/status-table';
import { idProblem } from '../domain/text-and-days';
import type { Page } from '../gateway/types';
import { dialectOf } from '../persistence/dialect';
import { InvoiceRecord, InvoiceStatusHistory } from '../persistence/invoice.entity';
import { adminValidationError, problemsOf } from './admin-problems';
import type { ListInvoicesQueryDto } from './admin.dto';

const PREFIXED = ['order_id', 'display_id', 'gateway_id', 'customer_email'] as const;

/** Trigram index of the customer's name, made where `pg_trgm` could be installed. */
const NAME_TRIGRAMS = 'IDX_invoice_payments_invoice_q_name';

export const DEFAULT_PAGE_LIMIT = 20;

/** Never a full `COUNT`: past this a total is "10 000+" (`totalCapped`). */
export const TOTAL_CAP = 10_000;

export interface CountedPage<V> extends Page<V> {
  totalCapped: boolean;
}

export function countedPage<V>(items: V[], page: number, limit: number, matched: number): CountedPage<V> {
  const total = Math.min(matched, TOTAL_CAP);
  return { items, page, limit, total, pages: Math.ceil(total / limit), totalCapped: matched > TOTAL_CAP };
}

/** An invoice as the admin API lists it: the local record, without the raw payload. */
export type AdminInvoiceView = ReturnType<typeof toView>;

@Injectable()
export class AdminInvoicesService implements OnApplicationBootstrap {
  private readonly logger = new Logger('InvoicePaymentsAdmin');
  private readonly invoices: Repository<InvoiceRecord>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.invoices = dataSource.getRepository(InvoiceRecord);
  }

  /** Warns once at start when `q` must scan the table; one catalog read, which never fails the start. */
  async onApplicationBootstrap(): Promise<void> {
    await this.checkNameIndex().catch(() => undefined);
  }

  async checkNameIndex(): Promise<boolean> {
    const query = dialectOf(this.dataSource).invoiceSearch.nameIndexQuery;
    if (query === null) return true;
    const found = (await this.dataSource.query(query, [NAME_TRIGRAMS])) as unknown[];
    if (found.length > 0) return true;
    this.logger.warn(
      `the admin search has no index for customer names (${NAME_TRIGRAMS}: pg_trgm was not available): ` +
        'each search scans the invoice table; see docs/admin.md (Search at scale) to create it',
    );
    return false;
  }

  /** Newest first, after `cursor` by keyset when given, else at `page` by offset; total counted up to the cap. */
  async list(query: ListInvoicesQueryDto): Promise<KeysetPage<AdminInvoiceView>> {
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
    const page = query.page ?? 1;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after) {
      throw adminValidationError(problemsOf({ cursor: ['cursor must be a nextCursor this list gave'] }));
    }
    const matching = this.matching(query);
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

  async history(invoiceRecordId: string) {
    const rows = await this.dataSource.getRepository(InvoiceStatusHistory).find({
      where: { invoiceRecordId },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: 500,
    });
    return rows.map(historyView);
  }

  /** Adds the order's number (`displayId`) to rows naming an invoice record; one query per page. */
  async withDisplayIds<T extends { invoiceRecordId: string | null }>(
    page: Page<T>,
  ): Promise<Page<T & { displayId: string | null }>> {
    const ids = new Set(page.items.flatMap((i) => (i.invoiceRecordId ? [i.invoiceRecordId] : [])));
    const select = { id: true, displayId: true };
    const rows = ids.size ? await this.invoices.find({ where: { id: In([...ids]) }, select }) : [];
    const numbers = new Map(rows.map((r) => [r.id, r.displayId]));
    const items = page.items.map((i) => ({
      ...i,
      displayId: (i.invoiceRecordId && numbers.get(i.invoiceRecordId)) || null,
    }));
    return { ...page, items };
  }

  private matching(query: ListInvoicesQueryDto): SelectQueryBuilder<InvoiceRecord> {
    const qb = this.invoices.createQueryBuilder('i');
    const { status: statusCode, orderId, method, creationState } = query;
    for (const [column, value] of Object.entries({ statusCode, orderId, method, creationState })) {
      if (value !== undefined) qb.andWhere(`i.${column} = :${column}`, { [column]: value });
    }
    // Stored as ISO-8601 UTC text, which compares in time order.
    if (query.createdFrom)
      qb.andWhere('i.createdAt >= :from', { from: new Date(query.createdFrom).toISOString() });
    if (query.createdBefore)
      qb.andWhere('i.createdAt < :before', { before: new Date(query.createdBefore).toISOString() });
    // Its own `%`, `_` and `\` taken literally.
    const q = query.q
      ?.trim()
      .toLowerCase()
      .replace(/[\\%_]/g, (c) => `\\${c}`);
    if (q) {
      const where = dialectOf(this.dataSource).invoiceSearch.where(
        this.invoices.metadata.tableName,
        PREFIXED,
      );
      qb.andWhere(where, { prefix: `${q}%`, word: `% ${q}%` });
    }
    return qb;
  }
}

export interface KeysetPage<V> extends CountedPage<V> {
  nextCursor: string | null;
}

/** The last item's creation instant and id, opaque to clients. */
export function encodeCursor(at: { createdAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([at.createdAt, at.id])).toString('base64url');
}

/** `null` when it is not a cursor this API gave out. */
function decodeCursor(cursor: string): { createdAt: string; id: string } | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const [createdAt, id, ...more] = Array.isArray(value) ? (value as unknown[]) : [];
    // An invalid date throws here.
    const ok = typeof createdAt === 'string' && new Date(createdAt).toISOString() === createdAt;
    return ok && typeof id === 'string' && idProblem(id) === null && more.length === 0
      ? { createdAt, id }
      : null;
  } catch {
    return null;
  }
}

/** Each code's key in {@link InvoiceStatusCode} (`Paid`), which names its text on the admin page. */
const STATUS_KEYS = new Map<number, string>(
  Object.entries(InvoiceStatusCode).map(([key, code]) => [code, key]),
);

/**
 * A status as the admin page shows it, all from the status table: `key` names its text in the page's languages,
 * `tone` its badge; `null` for no status yet or a code the spec does not list.
 */
export function statusView(code: number | null) {
  const row = statusRow(code);
  if (!row) return null;
  return { code: row.code, key: STATUS_KEYS.get(row.code) as string, name: row.name, tone: row.tone };
}

/** The statuses the list can be filtered by, in code order. */
export const STATUS_VIEWS = Object.values(STATUS_TABLE).map((row) => statusView(row.code));

export function toView(row: InvoiceRecord) {
  const code = row.statusCode;
  const actions = allowedActions(row);
  const session = sessionDataOf(row);
  return {
    id: row.id,
    orderId: row.orderId,
    /** The order number people know (the host's `display_id`), when the host gave one. */
    displayId: row.displayId,
    /** The customer as given at checkout; the document masked (`***.982.247-**`). */
    customer: { name: row.customerName, email: row.customerEmail, document: row.customerDocument },
    /** What the invoice's state allows now: the page offers only these. */
    allowedActions: actions,
    /** Cents that can still be refunded; 0 when the invoice cannot be refunded now. */
    refundableCents: actions.includes('refund') ? refundableCents(row) : 0,
    attempt: row.attempt,
    method: row.method,
    creationState: row.creationState as string,
    gatewayId: row.gatewayId,
    gatewayInvoiceId: row.gatewayInvoiceId,
    statusCode: code,
    statusText: row.statusText,
    statusName: statusRow(code)?.name ?? null,
    /** The status's key (its text on the admin page) and tone (its badge); `null` before a known status. */
    statusKey: statusView(code)?.key ?? null,
    statusTone: statusRow(code)?.tone ?? null,
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
    /** The creation's outcome is being confirmed until then; nothing new is created before. */
    confirmingUntil: session.confirmingUntil,
    /** Why the module stopped deciding on its own: resolve with `recheck` or `mark-not-created`. */
    attentionReason: session.attentionReason,
    /** The record of the order's invoice this one duplicates (canceled, or paid and alerted). */
    duplicateOf: row.duplicateOf,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function historyView(h: InvoiceStatusHistory) {
  return {
    id: h.id,
    fromCode: h.fromCode,
    toCode: h.toCode,
    toName: statusView(h.toCode)?.name ?? null,
    /** The status reached as the admin page shows it (key and tone). */
    to: statusView(h.toCode),
    statusText: h.statusText,
    source: h.source as string,
    applied: h.applied,
    note: h.note,
    /** `null`: the note is shown as written. */
    noteCode: h.alert === 'amount_mismatch' ? 'amount_mismatch' : noteCodeOf(h),
    alert: h.alert,
    createdAt: h.createdAt.toISOString(),
  };
}

/** A row's transition as the page's stable code, decided from its codes; a row with a note shows the note. */
function noteCodeOf(h: InvoiceStatusHistory): string | null {
  const verdict = h.note === null ? transitionOfRow(h)?.verdict : undefined;
  return verdict && verdict !== 'apply' ? verdict : null;
}
