import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents, messageOf } from '../core/events';
import { CLOCK, type Clock } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import { runInTransaction } from '../persistence/dialect';
import { InvoicePaymentsAlertRecord } from './alert.entity';

/**
 * Keeps every `InvoicePaymentsEvents.Alert` for the admin page. The listener never throws into the emitter: it only
 * queues its write, and a failed write is logged with the alert's message.
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
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.events.on(InvoicePaymentsEvents.Alert, this.listener);
  }

  /** Waits for the writes under way before TypeORM closes its connections. */
  async onModuleDestroy(): Promise<void> {
    this.events.off(InvoicePaymentsEvents.Alert, this.listener);
    await Promise.allSettled([...this.writes]);
  }

  async record(alert: InvoicePaymentsAlert): Promise<void> {
    const row: InvoicePaymentsAlertRecord = Object.assign(new InvoicePaymentsAlertRecord(), {
      id: randomUUID(),
      kind: clip(String(alert?.kind ?? 'unknown'), 32),
      orderId: alert?.orderId ? clip(String(alert.orderId), 128) : null,
      invoiceRecordId: alert?.invoiceRecordId ? clip(String(alert.invoiceRecordId), 36) : null,
      message: clip(String(alert?.message ?? ''), 2000),
      createdAt: this.clock.date(),
      acknowledgedAt: null,
    });
    try {
      await runInTransaction(this.dataSource, (em) =>
        em.getRepository(InvoicePaymentsAlertRecord).insert(row),
      );
    } catch (err) {
      this.logger.error(`alert ${row.kind} could not be stored (${messageOf(err)}): ${row.message}`);
    }
  }
}
