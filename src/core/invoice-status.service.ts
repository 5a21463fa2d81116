import { Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource, EntityManager, IsNull, type Repository } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import {
  dialectOf,
  guardedStatusStatement,
  runInTransaction,
  type ColumnMetadata,
  type Dialect,
} from '../persistence/dialect';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoicePaymentsError } from '../errors/invoice-payments.error';
import { DUPLICATE_WON, emitSafely, InvoicePaymentsAlert, InvoicePaymentsEvents, messageOf } from './events';
import { creationMoveRefusal, CreationMoveRefusedError, type CreationMove } from './creation-move';
import { changeOf, type Adoption } from './ports';
import {
  NO_HISTORY,
  planStatus,
  STATUS_REPORT_SOURCES,
  statusRow,
  type AppliedStatus,
  type ApplyOptions,
  type KnownHistory,
  type StatusPlan,
  type StatusReport,
} from './status-table';
import { StatusChangeDispatcher } from './status-dispatcher.service';
import { queryReturning } from './typeorm-compat';

/**
 * The one path that changes an invoice record's status: the transition table decides, every report is kept in the
 * status history, and each applied change is handed to the {@link StatusChangeDispatcher} once its write committed
 * (a rollback tells nobody; a failure there is logged, never thrown: the write committed, the caller's answer stands).
 */
@Injectable()
export class InvoiceStatusService {
  private readonly logger = new Logger(InvoiceStatusService.name);
  private readonly dialect: Dialect;
  /** The guarded statement of each patch's property list: a status write is on every checkout. */
  private readonly statements = new Map<string, ReturnType<typeof guardedStatusStatement>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatcher: StatusChangeDispatcher,
    private readonly events: EventEmitter2,
  ) {
    this.dialect = dialectOf(dataSource);
  }

  /**
   * Records a report and applies it when the transition table allows; the host hears after the commit. Never from
   * inside a transaction (SQLite's writer queue is not re-entrant).
   */
  async apply(report: StatusReport, options: ApplyOptions = {}): Promise<AppliedStatus> {
    assertReport(report);
    const { record, known, creation } = options;
    const extra = creation?.patch ?? {};
    // One guarded statement where the dialect has it, the record as read still so; else the locked transaction. A
    // creation move the record as read refuses is left to the locked path, which decides on the record as it is.
    const movable = !creation || !record || creationMoveRefusal(record, creation) === null;
    let plan: StatusPlan | null = null;
    if (record?.id === report.recordId && known && movable && this.dialect.guardedStatusWrite) {
      const patch = (await this.winsOver(this.dataSource.manager, record, report))
        ? { ...extra, duplicateOf: null }
        : extra;
      plan = planStatus(record, known, report, patch, this.handOverLease());
      if (Object.keys(plan.patch).length === 0 || !(await this.writeGuarded(plan, record.version, known)))
        plan = null;
    }
    plan ??= await runInTransaction(this.dataSource, (em) => this.writeLocked(em, report, creation));
    this.afterCommit(plan);
    return { result: plan.result, record: plan.written };
  }

  /** The histories {@link ApplyOptions.known} needs, in one query. */
  async knownHistories(ids: string[], em = this.dataSource.manager): Promise<Map<string, KnownHistory>> {
    const known = new Map<string, KnownHistory>(ids.map((id) => [id, NO_HISTORY]));
    if (ids.length === 0) return known;
    const rows = await em
      .createQueryBuilder(InvoiceStatusHistory, 'h')
      .select('h.invoiceRecordId', 'id')
      .addSelect('MAX(h.createdAt)', 'latest')
      .addSelect('SUM(CASE WHEN h.applied = :yes AND h.notifiedAt IS NULL THEN 1 ELSE 0 END)', 'open')
      .where('h.invoiceRecordId IN (:...ids)', { ids, yes: true })
      .groupBy('h.invoiceRecordId')
      .getRawMany<{ id: string; latest: string | null; open: string | number | null }>();
    for (const row of rows) known.set(row.id, { latest: row.latest, openChanges: Number(row.open ?? 0) });
    return known;
  }

  private async writeLocked(em: EntityManager, report: StatusReport, creation?: CreationMove) {
    // Two statements: one that waited for the lock still reads with the snapshot it started with.
    const qb = em.createQueryBuilder(InvoiceRecord, 'r').where('r.id = :id', { id: report.recordId });
    const record = await this.dialect.lockForWrite(qb).getOne();
    if (!record) throw new ReportedRecordNotFoundError(report.recordId);
    const refused = creation ? creationMoveRefusal(record, creation) : null;
    if (refused) throw new CreationMoveRefusedError(record.id, refused);
    let extra = creation?.patch ?? {};
    const known = (await this.knownHistories([record.id], em)).get(record.id) ?? NO_HISTORY;
    if (await this.winsOver(em, record, report)) extra = { ...extra, duplicateOf: null };
    const plan = planStatus(record, known, report, extra, this.handOverLease());
    await em.insert(InvoiceStatusHistory, plan.history);
    if (Object.keys(plan.patch).length > 0) await em.update(InvoiceRecord, { id: record.id }, plan.patch);
    return plan;
  }

  /** A payment of an invoice marked as a duplicate of an unpaid one: it wins, unmarked (docs/checkout.md). */
  private async winsOver(em: EntityManager, record: InvoiceRecord, { code }: StatusReport): Promise<boolean> {
    const paid = (r: InvoiceRecord | null) => statusRow(r?.statusCode)?.session === 'captured';
    if (!record.duplicateOf || paid(record) || statusRow(code)?.session !== 'captured') return false;
    return !paid(await em.findOneBy(InvoiceRecord, { id: record.duplicateOf }));
  }

  /** History row and record patch in one CTE, written (`true`) only if the record is at `version`, `known` holds. */
  // Every history writer updates the record, so its version moves with either.
  private async writeGuarded({ history, patch }: StatusPlan, version: number, known: KnownHistory) {
    const shape = Object.keys(patch);
    const statement = this.statements.get(shape.join()) ?? guardedStatusStatement(this.dataSource, shape);
    this.statements.set(shape.join(), statement);
    const prepare = (c: ColumnMetadata, v: unknown) => this.dataSource.driver.preparePersistentValue(v, c);
    const params: unknown[] = [
      history.invoiceRecordId,
      version,
      ...statement.patchColumns.map((c) => prepare(c, patch[c.propertyName as keyof InvoiceRecord])),
      known.latest,
      known.openChanges,
      ...statement.historyColumns.map((c) => prepare(c, c.getEntityValue(history))),
    ];
    return (await queryReturning(this.dataSource.manager, statement.sql, params)).length === 1;
  }

  // Not on a shared connection, where a host port opening its own transaction at once could meet ours.
  private handOverLease(): Date | null {
    return this.dialect.sharedConnection ? null : this.dispatcher.handOverLease();
  }

  private afterCommit({ result, handOver, history, patch, written, previousText }: StatusPlan): void {
    // The order follows the payment: its other invoice is canceled by the checkout's enforcement.
    if ('duplicateOf' in patch) emitSafely(this.events, this.logger, DUPLICATE_WON, written.orderId);
    try {
      if (handOver) this.dispatcher.handOver(history, changeOf(history, written, previousText));
      else if (result.applied) this.dispatcher.deliver(result.recordId);
      else this.logger.debug(`invoice ${result.recordId}: ${result.reason ?? 'not applied'}`);
    } catch (err) {
      this.logger.error(`after-commit work failed: ${messageOf(err)}`);
    }
  }
}

function assertReport(report: StatusReport): void {
  if (typeof report?.recordId !== 'string' || report.recordId.length === 0)
    throw new InvalidStatusReportError('recordId', 'must be a non-empty string');
  if (!Number.isSafeInteger(report.code))
    throw new InvalidStatusReportError('code', `must be an integer, got ${String(report.code)}`);
  if (!(STATUS_REPORT_SOURCES as readonly unknown[]).includes(report.source))
    throw new InvalidStatusReportError('source', `must be one of ${STATUS_REPORT_SOURCES.join(', ')}`);
}

/** The record a status report names does not exist (the checkout's own 404 is `InvoiceRecordNotFoundError`). */
export class ReportedRecordNotFoundError extends InvoicePaymentsError {
  constructor(readonly recordId: string) {
    super('reported_record_not_found', `recordId: no invoice record ${recordId}`, { recordId });
  }
}

/** A status report the module built wrong: `field` names what is wrong with it. */
export class InvalidStatusReportError extends InvoicePaymentsError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super('invalid_status_report', `${field}: ${problem}`, { field });
  }
}

/** `number`: the record holds it; `lookup`: {@link InvoiceIdentity.findOurs}; `referrer`: payment id still unasked. */
type MatchedBy = 'number' | 'lookup' | 'referrer';

/**
 * "Ours means ours" (docs/webhooks.md): an invoice is a record's only with the referrer, payment id (the lookup's
 * filter, A7: the shapes do not carry it) and gross the module sent; by the number the record holds, the referrer
 * alone. Anything else is left alone by every caller and alerted once per invoice and record: one instance per
 * module (the status module's), shared by the checkout, the webhooks and the reconciliation.
 */
@Injectable()
export class InvoiceIdentity {
  private readonly logger = new Logger('InvoiceIdentity');
  /** Verdicts kept, 10,000 at most (an invoice's referrer, payment id and amount never change). */
  private readonly foreign = new LRUCache<string, string>({ max: 10_000 });
  private readonly alerted = new LRUCache<string, string>({ max: 10_000 });

  constructor(
    @Inject(GatewayClient) private readonly gateway: Pick<GatewayClient, 'findInvoiceByReferrer'>,
    private readonly events: EventEmitter2,
  ) {}

  /** Why `invoice` is not `record`'s, or `null`; throws when the service could not be asked. */
  async whyNotOurs(invoice: Invoice, record: InvoiceRecord, matchedBy: MatchedBy): Promise<string | null> {
    // Per way of matching: a verdict by referrer never decides a later match by the number the record holds.
    const key = `${matchedBy}\u0000${invoice.id}\u0000${record.id}`;
    const known = this.foreign.get(key);
    if (known !== undefined) return known;
    const why = await this.verdict(invoice, record, matchedBy);
    if (why !== null) {
      this.foreign.set(key, why);
      this.leftAlone(invoice, record, why);
    }
    return why;
  }

  /** The record's invoice at the service by its identity, or `null` (none, or only another's). */
  async findOurs(record: InvoiceRecord): Promise<Invoice | null> {
    const found = await this.gateway.findInvoiceByReferrer(record.referrer, {
      // The `payment.id` sent at creation is the record's order id (the attempt's claim writes one from the other).
      paymentId: record.orderId,
    });
    if (!found) return null;
    return (await this.whyNotOurs(found, record, 'lookup')) === null ? found : null;
  }

  private async verdict(
    invoice: Invoice,
    record: InvoiceRecord,
    matchedBy: MatchedBy,
  ): Promise<string | null> {
    const named = `invoice ${invoice.id} (referrer ${invoice.referrer ?? 'none'})`;
    const theirs = `is not order ${record.orderId}'s (record ${record.id})`;
    // `findInvoiceById` also answers by `invoice_id`: another invoice, even without a referrer.
    if (matchedBy === 'number' && invoice.id !== record.gatewayId)
      return `${named} ${theirs}: the record holds invoice ${record.gatewayId}`;
    if (invoice.referrer !== record.referrer) {
      // A number the record holds, in an answer without a referrer (the cancellation's legacy shape): its own.
      if (matchedBy === 'number' && invoice.referrer === null) return null;
      return `${named} ${theirs}: the module sent referrer ${record.referrer}`;
    }
    if (matchedBy === 'number') return null;
    const gross = invoice.amounts.grossCents;
    if (gross !== null && gross !== record.amountCents) {
      return `${named} ${theirs}: its amount ${centsToDecimalString(gross)} is not the ${centsToDecimalString(record.amountCents)} sent`;
    }
    if (matchedBy === 'lookup') return null;
    const query = { paymentId: record.orderId, id: invoice.id };
    const listed = await this.gateway.findInvoiceByReferrer(record.referrer, query);
    return listed ? null : `${named} ${theirs}: the service does not list it under the payment id sent`;
  }

  private leftAlone(invoice: Invoice, record: InvoiceRecord, why: string): void {
    const pair = `${invoice.id}\u0000${record.id}`;
    if (this.alerted.has(pair)) return;
    this.alerted.set(pair, why);
    const message = `${why}; left alone (not canceled, refunded, adopted or applied to the order)`;
    this.logger.warn(message);
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.Alert, {
      kind: 'foreign_invoice',
      orderId: record.orderId,
      invoiceRecordId: record.id,
      message,
    } satisfies InvoicePaymentsAlert);
  }
}

/** The status path, its outbox and the identity check, global so every capability shares one of each. */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService, InvoiceIdentity],
  exports: [StatusChangeDispatcher, InvoiceStatusService, InvoiceIdentity],
})
export class InvoiceStatusModule {}

/**
 * The record of a service invoice, identity-checked: the one holding its number, else the attempt with its referrer
 * and no invoice yet. `byReferrer` replaces that step where the checkout adopts late invoices.
 */
export async function recordOfInvoice(
  rows: Repository<InvoiceRecord>,
  identity: InvoiceIdentity,
  invoice: Invoice,
  byReferrer?: (invoice: Invoice) => Promise<Adoption>,
): Promise<Adoption> {
  const byNumber = invoice.id ? await rows.findOneBy({ gatewayId: invoice.id }) : null;
  if (!byNumber && invoice.referrer && byReferrer) return byReferrer(invoice);
  const record =
    byNumber ??
    (invoice.referrer ? await rows.findOneBy({ referrer: invoice.referrer, gatewayId: IsNull() }) : null);
  if (!record) return { record: null, foreign: null };
  const foreign = await identity.whyNotOurs(invoice, record, byNumber ? 'number' : 'referrer');
  return { record: foreign ? null : record, foreign };
}
