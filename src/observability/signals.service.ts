import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import type { DataSource } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import type { PaymentStatusChange } from '../core/ports';
import { readBacklog } from './backlog';
import { count, meter, recordPortDelay } from './otel';

/** The names the status changes' sources are counted under. */
const SOURCES: Record<string, string> = {
  webhook: 'webhook',
  sweep: 'reconciliation',
  create: 'checkout',
  provider: 'checkout',
  operation: 'operation',
};

/**
 * Turns the module's events into metrics (status changes, port delay, alerts, tracking codes) and observes its
 * queues (inbox, tracking outbox, host port, dead letters) as gauges read from the database at each collection.
 */
@Injectable()
export class SignalsService implements OnModuleInit, OnModuleDestroy {
  private readonly listeners: Array<[string, (payload: unknown) => void]> = [
    [InvoicePaymentsEvents.StatusChanged, (change) => this.changed(change as PaymentStatusChange)],
    [
      InvoicePaymentsEvents.Alert,
      (alert) => count('alerts', { 'invoice_payments.alert.kind': (alert as InvoicePaymentsAlert).kind }),
    ],
    [InvoicePaymentsEvents.TrackingPosted, () => count('tracking', { 'invoice_payments.outcome': 'posted' })],
    [InvoicePaymentsEvents.TrackingFailed, () => count('tracking', { 'invoice_payments.outcome': 'failed' })],
  ];
  private gauges: { meter: Meter; callback: BatchObservableCallback; observables: Observable[] } | null =
    null;

  constructor(
    private readonly events: EventEmitter2,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    for (const [event, listener] of this.listeners) this.events.on(event, listener);
    const m = meter();
    if (m) this.observeQueues(m);
  }

  onModuleDestroy(): void {
    for (const [event, listener] of this.listeners) this.events.off(event, listener);
    if (this.gauges)
      this.gauges.meter.removeBatchObservableCallback(this.gauges.callback, this.gauges.observables);
    this.gauges = null;
  }

  private changed(change: PaymentStatusChange): void {
    const status = change.current.sessionStatus;
    const source = SOURCES[change.source] ?? 'other';
    count('changes', { 'invoice_payments.source': source, 'invoice_payments.status': status });
    if (status === 'captured' && change.previous?.sessionStatus !== 'captured') {
      recordPortDelay((Date.now() - new Date(change.occurredAt).getTime()) / 1000);
    }
  }

  private observeQueues(m: Meter): void {
    const gauge = (name: string, unit: string, description: string) =>
      m.createObservableGauge(name, { unit, description });
    const inbox = gauge('invoice_payments.inbox.backlog', '{delivery}', 'Webhook deliveries waiting');
    const inboxAge = gauge('invoice_payments.inbox.oldest_age', 's', 'Age of the oldest delivery waiting');
    const tracking = gauge('invoice_payments.tracking.outbox.pending', '{code}', 'Tracking codes waiting');
    const lag = gauge('invoice_payments.tracking.outbox.lag', 's', 'Age of the oldest tracking code waiting');
    const port = gauge(
      'invoice_payments.port.pending',
      '{change}',
      'Status changes the host was not told yet',
    );
    const portAge = gauge('invoice_payments.port.oldest_age', 's', 'Age of the oldest change not told yet');
    const dead = gauge('invoice_payments.dead_letters', '{row}', 'Rows given up, by queue');
    const observables = [inbox, inboxAge, tracking, lag, port, portAge, dead];
    const callback: BatchObservableCallback = async (result) => {
      const backlog = await readBacklog(this.dataSource).catch(() => null);
      if (!backlog) return;
      result.observe(inbox, backlog.inbox.count);
      result.observe(inboxAge, backlog.inbox.oldestAgeSeconds);
      result.observe(tracking, backlog.tracking.count);
      result.observe(lag, backlog.tracking.oldestAgeSeconds);
      result.observe(port, backlog.port.count);
      result.observe(portAge, backlog.port.oldestAgeSeconds);
      result.observe(dead, backlog.deadLetters.inbox, { 'invoice_payments.queue': 'inbox' });
      result.observe(dead, backlog.deadLetters.tracking, { 'invoice_payments.queue': 'tracking' });
    };
    m.addBatchObservableCallback(callback, observables);
    this.gauges = { meter: m, callback, observables };
  }
}
