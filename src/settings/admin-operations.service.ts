import { ConflictException, Inject, Injectable, Logger, NotFoundException, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  In,
  IsNull,
  Not,
  type FindManyOptions,
  type FindOptionsSelect,
  type FindOptionsWhere,
  type ObjectLiteral,
  type Repository,
} from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { requeueUnleased } from '../core/queue/leased-rows';
import { CLOCK, type Clock } from '../domain/clock';
import { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import { TrackingWorker } from '../shipping/tracking.worker';
import type { TrackingOutboxStatus } from '../domain/shipping.types';
import { WebhookInboxEntry, type WebhookInboxState } from '../webhooks/webhook-inbox';
import { WebhookInboxProcessor } from '../webhooks/webhook-inbox.processor';
import type { AlertsQueryDto, InboxQueryDto, OutboxQueryDto, PageQueryDto } from './admin.dto';
import { countedPage, DEFAULT_PAGE_LIMIT, TOTAL_CAP, type CountedPage } from './admin-invoices.service';
import { runInTransaction } from '../persistence/dialect';
import { InvoicePaymentsAlertRecord } from './alert.entity';

/**
 * The Operations tab: the webhook inbox, the tracking outbox and the alerts. A retry is one more attempt: the count
 * goes on, so an entry that fails again is dead-lettered (or failed) again at once.
 */
@Injectable()
export class AdminOperationsService {
  private readonly logger = new Logger('InvoicePaymentsAdmin');

  /** Without a worker, a requeued row waits for its next poll. */
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly inbox?: WebhookInboxProcessor,
    @Optional() private readonly tracking?: TrackingWorker,
  ) {}

  async listInbox(query: InboxQueryDto) {
    const states: WebhookInboxState[] = query.state ? [query.state] : ['pending', 'dead'];
    const repo = this.dataSource.getRepository(WebhookInboxEntry);
    const order = { receivedAt: 'ASC', id: 'ASC' } as const;
    return findPage(repo, query, { where: { state: In(states) }, order }, inboxView);
  }

  async retryInbox(id: string) {
    const repo = this.dataSource.getRepository(WebhookInboxEntry);
    const entry = await repo.findOneBy({ id });
    if (!entry) throw new NotFoundException(`No webhook inbox entry ${id}`);
    if (entry.state === 'dead' && entry.attempts === 0) {
      throw new ConflictException(
        'this delivery was unreadable when it arrived and was refused (422): the service sends it again',
      );
    }
    const now = this.clock.date();
    await this.requeue(WebhookInboxEntry, id, 'state', entry.state, ['dead', 'pending'], {
      what: ['webhook inbox entry', 'this delivery', 'being processed'],
      patch: { state: 'pending', nextAttemptAt: now, processedAt: null },
    });
    this.inbox?.kick();
    return inboxView(await repo.findOneByOrFail({ id }));
  }

  async listOutbox(query: OutboxQueryDto) {
    const statuses: TrackingOutboxStatus[] = query.status ? [query.status] : ['pending', 'failed'];
    const repo = this.dataSource.getRepository(TrackingOutbox);
    const order = { recordedAt: 'ASC', id: 'ASC' } as const;
    return findPage(repo, query, { where: { status: In(statuses) }, order }, outboxView);
  }

  /** The worker still skips a code a newer one replaced. */
  async retryOutbox(id: string) {
    const repo = this.dataSource.getRepository(TrackingOutbox);
    const row = await repo.findOneBy({ id });
    if (!row) throw new NotFoundException(`No tracking outbox row ${id}`);
    const now = this.clock.date();
    await this.requeue(TrackingOutbox, id, 'status', row.status, ['failed', 'pending'], {
      what: ['tracking outbox row', 'this tracking code', 'being posted'],
      patch: { status: 'pending', nextAttemptAt: now, updatedAt: now },
    });
    this.tracking?.kick();
    return outboxView(await repo.findOneByOrFail({ id }));
  }

  async listAlerts(query: AlertsQueryDto) {
    const where: FindOptionsWhere<InvoicePaymentsAlertRecord> = {};
    if (query.open !== undefined) where.acknowledgedAt = query.open ? IsNull() : Not(IsNull());
    if (query.kind !== undefined) where.kind = query.kind;
    const repo = this.dataSource.getRepository(InvoicePaymentsAlertRecord);
    return findPage(repo, query, { where, order: { createdAt: 'DESC', id: 'ASC' } }, alertView);
  }

  /** Idempotent. */
  async acknowledgeAlert(id: string) {
    const repo = this.dataSource.getRepository(InvoicePaymentsAlertRecord);
    await runInTransaction(this.dataSource, (em) =>
      em
        .getRepository(InvoicePaymentsAlertRecord)
        .update({ id, acknowledgedAt: IsNull() }, { acknowledgedAt: this.clock.date() }),
    );
    const row = await repo.findOneBy({ id });
    if (!row) throw new NotFoundException(`No alert ${id}`);
    return alertView(row);
  }

  /** Makes a row in one of the `retryable` states due now, unless a worker holds it (409 either way). */
  private async requeue<T extends WebhookInboxEntry | TrackingOutbox>(
    entity: new () => T,
    id: string,
    column: 'state' | 'status',
    from: string,
    retryable: string[],
    { what: [row, named, busy], patch }: { what: [string, string, string]; patch: QueryDeepPartialEntity<T> },
  ): Promise<void> {
    if (!retryable.includes(from))
      throw new ConflictException(`${named} is ${from}: there is nothing to retry`);
    if (!(await requeueUnleased(this.dataSource, entity, id, column, from, this.clock.date(), patch))) {
      throw new ConflictException(`${named} is ${busy} right now`);
    }
    this.logger.log(`${row} ${id} (${from}) queued again by an admin`);
  }
}

/** No payload: it holds the customer's data. */
export type AdminInboxView = ReturnType<typeof inboxView>;
export type AdminAlertView = ReturnType<typeof alertView>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function inboxView(e: WebhookInboxEntry) {
  return {
    id: e.id,
    state: e.state as string,
    event: e.event,
    deliveryId: e.deliveryId,
    gatewayId: e.gatewayId,
    statusCode: e.statusCode,
    attempts: e.attempts,
    lastError: e.lastError,
    outcome: e.outcome,
    invoiceRecordId: e.invoiceRecordId,
    receivedAt: e.receivedAt.toISOString(),
    nextAttemptAt: iso(e.nextAttemptAt),
    processedAt: iso(e.processedAt),
    /** An entry unreadable on arrival may not be retried. */
    retryable: e.state === 'pending' || (e.state === 'dead' && e.attempts > 0),
  };
}

function outboxView(o: TrackingOutbox) {
  return {
    id: o.id,
    orderId: o.orderId,
    code: o.code,
    carrier: o.carrier,
    status: o.status as string,
    attempts: o.attempts,
    lastError: o.lastError,
    lastErrorCode: o.lastErrorKind,
    invoiceRecordId: o.invoiceRecordId,
    nextAttemptAt: o.nextAttemptAt.toISOString(),
    recordedAt: o.recordedAt.toISOString(),
    sentAt: iso(o.sentAt),
    retryable: o.status === 'pending' || o.status === 'failed',
  };
}

function alertView(row: InvoicePaymentsAlertRecord) {
  return {
    id: row.id,
    kind: row.kind,
    orderId: row.orderId,
    invoiceRecordId: row.invoiceRecordId,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
    acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
  };
}

/** One page of `repo.find(options)` by offset, each row mapped by `view`. */
async function findPage<E extends ObjectLiteral & { id: string }, V>(
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
