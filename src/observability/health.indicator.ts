import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import type { DataSource, ObjectLiteral } from 'typeorm';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../core/events';
import type { PaymentStatusChange } from '../core/ports';
import { GatewayClient } from '../gateway/gateway.client';
import { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import { InvoicePaymentsSettingsService } from '../settings/settings.service';
import { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';
import { HOUR, int, MINUTE, resolveNumbers, type Numbers } from '../options/fields';
import { count, lastCallTo, meter, recordPortDelay } from './otel';

/** Thresholds of `InvoicePaymentsHealthIndicator` (`forRoot({ health })`); a check past one reports `down`. */
export interface HealthOptions {
  /** With no call to the service for this long, a check makes one (a one-item list), kept as long. Default 30000. */
  probeIntervalMs?: number;
  /** Most webhook deliveries waiting in the inbox. Default 1000. */
  maxInboxBacklog?: number;
  /** Longest a delivery may wait in the inbox. Default 600000 (10 min). */
  maxInboxAgeMs?: number;
  /** Most dead letters (inbox and tracking outbox); `null` (the default) reports them without going down. */
  maxDeadLetters?: number | null;
  /** Longest a tracking code may wait to be posted. Default 3600000 (1 h). */
  maxTrackingLagMs?: number;
  /** Longest an applied status change may wait for the host's port to take it. Default 600000 (10 min). */
  maxPortDelayMs?: number;
}

const HEALTH = {
  probeIntervalMs: int(1, 30_000),
  maxInboxBacklog: int(1, 1000),
  maxInboxAgeMs: int(1, 10 * MINUTE),
  maxTrackingLagMs: int(1, HOUR),
  maxPortDelayMs: int(1, 10 * MINUTE),
} as const satisfies Numbers<HealthOptions>;

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveHealthOptions(options: HealthOptions = {}) {
  const dead = options.maxDeadLetters ?? null;
  if (dead !== null && (!Number.isSafeInteger(dead) || dead < 0)) {
    throw new Error('health.maxDeadLetters: must be an integer >= 0, or null');
  }
  return { ...resolveNumbers('health', HEALTH, options), maxDeadLetters: dead };
}

/** Injection token of the resolved `health` options. */
export const HEALTH_OPTIONS = Symbol('INVOICE_PAYMENTS_HEALTH_OPTIONS');

/** Outcomes of a call that say the service is not answering. */
const UNREACHABLE = ['network', 'timeout', 'unavailable', 'outcome_unknown'];

/** What `@nestjs/terminus` takes from an indicator: `{ [key]: { status, ...details } }`. */
export type InvoicePaymentsHealthResult = Record<
  string,
  { status: 'up' | 'down'; [detail: string]: unknown }
>;

/**
 * A health indicator for `@nestjs/terminus` (not needed to use it): the service, the database and the queues, each
 * against the `health` options' thresholds (docs/observability.md).
 *
 * @example
 * \@Get('health') \@HealthCheck()
 * check() { return this.health.check([() => this.payments.isHealthy('invoice_payments')]); }
 */
@Injectable()
export class InvoicePaymentsHealthIndicator {
  private probing: Promise<unknown> | null = null;

  constructor(
    @Inject(HEALTH_OPTIONS) private readonly options: Required<HealthOptions>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly gateway: GatewayClient,
    private readonly settings: InvoicePaymentsSettingsService,
  ) {}

  /** The module's health under `key`: `up`, or `down` with `problems` naming each check past its threshold. */
  async isHealthy(key = 'invoice_payments'): Promise<InvoicePaymentsHealthResult> {
    const problems: string[] = [];
    // The connection is read from the settings (the database): unreadable, the service cannot be judged either.
    const service = await this.service().catch(() => ({ reachable: false, credentialValid: true }));
    if (!service.reachable) problems.push('service: not answering');
    if (!service.credentialValid) problems.push('service: credential refused');
    let queues: Record<string, unknown> = {};
    try {
      const backlog = await readBacklog(this.dataSource);
      const o = this.options;
      const dead = backlog.deadLetters.inbox + backlog.deadLetters.tracking;
      const checks: Array<[boolean, string]> = [
        [backlog.inbox.count > o.maxInboxBacklog, 'inbox: backlog over health.maxInboxBacklog'],
        [backlog.inbox.oldestAgeSeconds * 1000 > o.maxInboxAgeMs, 'inbox: oldest over maxInboxAgeMs'],
        [o.maxDeadLetters !== null && dead > o.maxDeadLetters, 'dead letters: over maxDeadLetters'],
        [backlog.tracking.oldestAgeSeconds * 1000 > o.maxTrackingLagMs, 'tracking: over maxTrackingLagMs'],
        [backlog.port.oldestAgeSeconds * 1000 > o.maxPortDelayMs, 'host port: over maxPortDelayMs'],
      ];
      problems.push(...checks.flatMap(([over, problem]) => (over ? [problem] : [])));
      queues = { database: 'up', ...backlog };
    } catch {
      problems.push('database: not answering');
      queues = { database: 'down' };
    }
    const status = problems.length ? 'down' : 'up';
    return { [key]: { status, service, ...queues, ...(problems.length ? { problems } : {}) } };
  }

  /** From the latest call to the service; when none is recent, one probe shared by the checks meanwhile. */
  private async service() {
    const baseUrl = (await this.settings.gatewayConfig()).baseUrl.replace(/\/+$/, '');
    let last = lastCallTo(baseUrl);
    if (!last || Date.now() - last.at > this.options.probeIntervalMs) {
      this.probing ??= this.gateway
        .listInvoices({ limit: 1 })
        .catch(() => undefined)
        .finally(() => (this.probing = null));
      await this.probing;
      last = lastCallTo(baseUrl);
    }
    const outcome = last?.outcome ?? 'none';
    return {
      reachable: last !== null && !UNREACHABLE.includes(outcome),
      credentialValid: outcome !== 'authentication',
      lastCall: outcome,
      lastCallAgeSeconds: last ? Math.round((Date.now() - last.at) / 1000) : null,
    };
  }
}

/** A queue's waiting rows and the age of the oldest, in seconds (0 when none waits). */
type Waiting = { count: number; oldestAgeSeconds: number };

/** What waits in the queues now (`port`: changes the host was not told yet), for the health check and gauges. */
type Backlog = Record<'inbox' | 'tracking' | 'port', Waiting> & {
  deadLetters: Record<'inbox' | 'tracking', number>;
};

/** Reads the {@link Backlog}: five aggregate queries, each on an index of its table. */
async function readBacklog(dataSource: DataSource): Promise<Backlog> {
  const now = Date.now();
  const waiting = async (entity: new () => ObjectLiteral, since: string, where: string): Promise<Waiting> => {
    const row = await dataSource
      .getRepository(entity)
      .createQueryBuilder('q')
      .select('COUNT(*)', 'count')
      .addSelect(`MIN(q.${since})`, 'oldest')
      .where(where, { yes: true })
      .getRawOne<{ count: string | number; oldest: string | null }>();
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : NaN;
    return {
      count: Number(row?.count ?? 0),
      oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0,
    };
  };
  const [inbox, tracking, port, deadInbox, deadTracking] = await Promise.all([
    waiting(WebhookInboxEntry, 'received_at', "q.state = 'pending'"),
    waiting(TrackingOutbox, 'recorded_at', "q.status = 'pending'"),
    waiting(InvoiceStatusHistory, 'created_at', 'q.notified_at IS NULL AND q.applied = :yes'),
    dataSource.getRepository(WebhookInboxEntry).countBy({ state: 'dead' }),
    dataSource.getRepository(TrackingOutbox).countBy({ status: 'failed' }),
  ]);
  return { inbox, tracking, port, deadLetters: { inbox: deadInbox, tracking: deadTracking } };
}

/** The names the status changes' sources are counted under, where they differ from the source's own. */
const SOURCES: Record<string, string> = { sweep: 'reconciliation', create: 'checkout', provider: 'checkout' };

/** The queue gauges (`invoice_payments.` + name), unit, description (Prometheus' HELP) and figure. */
const GAUGES: Array<[string, string, string, (backlog: Backlog) => number]> = [
  ['inbox.backlog', '{delivery}', 'Webhook deliveries waiting', (b) => b.inbox.count],
  ['inbox.oldest_age', 's', 'Age of the oldest delivery waiting', (b) => b.inbox.oldestAgeSeconds],
  ['tracking.outbox.pending', '{code}', 'Tracking codes waiting', (b) => b.tracking.count],
  ['tracking.outbox.lag', 's', 'Age of the oldest tracking code waiting', (b) => b.tracking.oldestAgeSeconds],
  ['port.pending', '{change}', 'Status changes the host was not told yet', (b) => b.port.count],
  ['port.oldest_age', 's', 'Age of the oldest change not told yet', (b) => b.port.oldestAgeSeconds],
  ['dead_letters', '{row}', 'Rows given up, by queue', () => 0], // observed per queue below
];

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
    const source = SOURCES[change.source] ?? change.source;
    count('changes', { 'invoice_payments.source': source, 'invoice_payments.status': status });
    if (status === 'captured' && change.previous?.sessionStatus !== 'captured') {
      recordPortDelay((Date.now() - new Date(change.occurredAt).getTime()) / 1000);
    }
  }

  private observeQueues(m: Meter): void {
    const observables = GAUGES.map(([name, unit, description]) =>
      m.createObservableGauge(`invoice_payments.${name}`, { unit, description }),
    );
    const dead = observables[GAUGES.length - 1];
    const callback: BatchObservableCallback = async (result) => {
      const backlog = await readBacklog(this.dataSource).catch(() => null);
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
