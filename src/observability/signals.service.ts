import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import type { DataSource } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import type { PaymentStatusChange } from '../core/ports';
import { CLOCK, type Clock } from '../domain/clock';
import { type Backlog, readBacklog } from './backlog';
import { count, current, meter, recordPortDelay } from '../core/otel';

/** The names the status changes' sources are counted under, where they differ from the source's own. */
const SOURCES: Record<string, string> = { sweep: 'reconciliation', create: 'checkout', provider: 'checkout' };

/** The queue gauges (`invoice_payments.` + name), unit, description (Prometheus' HELP) and figure. */
const GAUGES: Array<[string, string, string, (backlog: Backlog) => number]> = [
  ['inbox.backlog', '{delivery}', 'Webhook deliveries waiting', (b) => b.inbox.count],
  ['inbox.oldest_age_seconds', 's', 'Age of the oldest delivery waiting', (b) => b.inbox.oldestAgeSeconds],
  ['tracking.outbox.pending', '{code}', 'Tracking codes waiting', (b) => b.tracking.count],
  [
    'tracking.outbox.lag_seconds',
    's',
    'Age of the oldest tracking code waiting',
    (b) => b.tracking.oldestAgeSeconds,
  ],
  ['port.pending', '{change}', 'Status changes the host was not told yet', (b) => b.port.count],
  ['port.oldest_age_seconds', 's', 'Age of the oldest change not told yet', (b) => b.port.oldestAgeSeconds],
  ['dead_letters', '{row}', 'Rows given up, by queue', () => 0], // observed per queue below
];

/**
 * Turns the module's events into metrics (status changes, port delay, alerts, tracking codes) and observes its
 * queues (inbox, tracking outbox, host port, dead letters) as gauges read from the database at each collection.
 * The counters are made (at 0) when the module starts, not at their first event.
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
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    for (const [event, listener] of this.listeners) this.events.on(event, listener);
    current();
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
    const source = SOURCES[change.source] ?? change.source;
    count('changes', { 'invoice_payments.source': source, 'invoice_payments.status': status });
    if (status === 'captured' && change.previous?.sessionStatus !== 'captured') {
      recordPortDelay((this.clock.now() - new Date(change.occurredAt).getTime()) / 1000);
    }
  }

  private observeQueues(m: Meter): void {
    const observables = GAUGES.map(([name, unit, description]) =>
      m.createObservableGauge(`invoice_payments.${name}`, { unit, description }),
    );
    const dead = observables[GAUGES.length - 1];
    const callback: BatchObservableCallback = async (result) => {
      const backlog = await readBacklog(this.dataSource, this.clock.now()).catch(() => null);
      if (!backlog) return;
      GAUGES.slice(0, -1).forEach(([, , , read], i) => result.observe(observables[i], read(backlog)));
      for (const queue of ['inbox', 'tracking'] as const) {
        result.observe(dead, backlog.deadLetters[queue], { 'invoice_payments.queue': queue });
      }
    };
    m.addBatchObservableCallback(callback, observables);
    this.gauges = { meter: m, callback, observables };
  }
}
