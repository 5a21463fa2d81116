import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsWhere, IsNull, Not } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import { clip } from '../core/text-bounds';
import { runInTransaction } from '../persistence/dialect';
import type { Page } from '../gateway/types';
import { InvoicePaymentsAlertRecord } from './alert.entity';
import { findPage, type PageQuery } from './paging';

/** An alert as the admin API lists it. */
export type AdminAlertView = ReturnType<typeof alertView>;

export interface AdminAlertQuery extends PageQuery {
  /** `true`: only alerts not acknowledged yet; `false`: only acknowledged ones; absent: all. */
  open?: boolean;
  kind?: string;
}

/** Longest message kept; longer ones are clipped (they are built from ids and gateway messages). */
const MAX_MESSAGE = 2000;

/**
 * Keeps every `InvoicePaymentsEvents.Alert` in the alerts table, so the admin page can list them.
 *
 * The listener is registered with `EventEmitter2.on` at start-up and never throws into the emitter: it only queues
 * its write (emitters may be inside their own work), and a failed write is logged with the alert's message, so the
 * alert is never lost without a trace.
 */
@Injectable()
export class InvoicePaymentsAlertsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('InvoicePaymentsAdmin');
  private readonly writes = new Set<Promise<void>>();
  private readonly listener = (alert: InvoicePaymentsAlert): void => {
    const write = this.record(alert).finally(() => this.writes.delete(write));
    this.writes.add(write);
  };

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
  ) {}

  onModuleInit(): void {
    this.events.on(InvoicePaymentsEvents.Alert, this.listener);
  }

  /** Stops listening and waits for the writes under way (before TypeORM closes its connections). */
  async onModuleDestroy(): Promise<void> {
    this.events.off(InvoicePaymentsEvents.Alert, this.listener);
    await Promise.allSettled([...this.writes]);
  }

  /** Stores one alert; resolves once it is written (or the failure logged). */
  async record(alert: InvoicePaymentsAlert): Promise<void> {
    const row: InvoicePaymentsAlertRecord = Object.assign(new InvoicePaymentsAlertRecord(), {
      id: randomUUID(),
      kind: clip(String(alert?.kind ?? 'unknown'), 32),
      orderId: alert?.orderId ? clip(String(alert.orderId), 128) : null,
      invoiceRecordId: alert?.invoiceRecordId ? clip(String(alert.invoiceRecordId), 36) : null,
      message: clip(String(alert?.message ?? ''), MAX_MESSAGE),
      createdAt: new Date(),
      acknowledgedAt: null,
    });
    try {
      await runInTransaction(this.dataSource, (em) =>
        em.getRepository(InvoicePaymentsAlertRecord).insert(row),
      );
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.logger.error(`alert ${row.kind} could not be stored (${why}): ${row.message}`);
    }
  }

  /** Alerts, newest first. */
  async list(query: AdminAlertQuery): Promise<Page<AdminAlertView>> {
    const where: FindOptionsWhere<InvoicePaymentsAlertRecord> = {};
    if (query.open !== undefined) where.acknowledgedAt = query.open ? IsNull() : Not(IsNull());
    if (query.kind !== undefined) where.kind = query.kind;
    const repo = this.dataSource.getRepository(InvoicePaymentsAlertRecord);
    return findPage(repo, query, { where, order: { createdAt: 'DESC', id: 'ASC' } }, alertView);
  }

  /** Marks an alert handled (idempotent); `null` when there is no such alert. */
  async acknowledge(id: string): Promise<AdminAlertView | null> {
    const repo = this.dataSource.getRepository(InvoicePaymentsAlertRecord);
    await runInTransaction(this.dataSource, (em) =>
      em
        .getRepository(InvoicePaymentsAlertRecord)
        .update({ id, acknowledgedAt: IsNull() }, { acknowledgedAt: new Date() }),
    );
    const row = await repo.findOneBy({ id });
    return row ? alertView(row) : null;
  }
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
