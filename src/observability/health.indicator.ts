import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { timeout, TimeoutStrategy } from 'cockatiel';
import type { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../domain/clock';
import { Poller } from '../core/queue/poller';
import { GatewayClient } from '../gateway/gateway.client';
import { type Backlog, readBacklog } from './backlog';
import { HEALTH_OPTIONS, type ResolvedHealthOptions } from '../options/health.options';
import { kindOf, type LastCall, lastCallTo } from '../core/otel';

/** Outcomes of a call that say the service is not answering. */
const UNREACHABLE = ['network', 'timeout', 'unavailable', 'outcome_unknown'];

/** What `@nestjs/terminus` takes from an indicator: `{ [key]: { status, ...details } }`. */
export type InvoicePaymentsHealthResult = Record<
  string,
  { status: 'up' | 'down'; [detail: string]: unknown }
>;

/** What the background check read last: the service's address (`null` while unknown) and the queues. */
type Reading = { baseUrl: string | null; backlog: Backlog | null };

/**
 * A health indicator for `@nestjs/terminus` (not needed to use it): the service, the database and the queues, each
 * against the `health` options' thresholds (docs/observability.md).
 *
 * A check answers at once from what the module already knows; it never waits for the service. From the first
 * check on, the module reads its queues every `health.checkIntervalMs` in the background, and asks the service
 * itself (one probe at a time, bounded by `health.probeTimeoutMs`) when none of its own calls answered for
 * `health.probeIntervalMs`. A host that never checks health gets no background work.
 *
 * @example
 * \@Get('health') \@HealthCheck()
 * check() { return this.health.check([() => this.payments.isHealthy('invoice_payments')]); }
 */
@Injectable()
export class InvoicePaymentsHealthIndicator extends Poller<void> {
  private reading: Reading | null = null;
  private closed = false;
  /**
   * The probe in flight: where it went and when it started on the module's clock. Its identity, so a late answer of
   * an abandoned one does not end the next.
   */
  private probe: { baseUrl: string; startedAt: number } | null = null;
  /** The latest probe's end: its answer, or `timeout` when it outlived `probeTimeoutMs`. */
  private probed: (LastCall & { baseUrl: string }) | null = null;

  constructor(
    @Inject(HEALTH_OPTIONS) private readonly options: ResolvedHealthOptions,
    @InjectDataSource() private readonly dataSource: DataSource,
    // The client knows the address in force (the stored settings over the options), so this edge needs not.
    private readonly gateway: GatewayClient,
    @Inject(CLOCK) clock: Clock,
  ) {
    super('health check', new Logger(InvoicePaymentsHealthIndicator.name), options.checkIntervalMs, clock);
  }

  /**
   * The module's health under `key`: `up`, or `down` with `problems` naming each check past its threshold. For
   * monitoring (dashboards, an uptime check): it includes the service, so it is no liveness probe.
   */
  async isHealthy(key = 'invoice_payments'): Promise<InvoicePaymentsHealthResult> {
    const { baseUrl, backlog } = await this.latest();
    const problems: string[] = [];
    const service = this.service(baseUrl);
    if (service.reachable === false) problems.push('service: not answering');
    if (!service.credentialValid) problems.push('service: credential refused');
    if (service.lastCall === 'not_configured') problems.push('service: connection not configured');
    if (!backlog) {
      problems.push('database: not answering');
      return { [key]: { status: 'down', service, database: 'down', problems } };
    }
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
    const status = problems.length ? 'down' : 'up';
    const details = { service, database: 'up', ...backlog };
    return { [key]: { status, ...details, ...(problems.length ? { problems } : {}) } };
  }

  /**
   * Whether this instance can take work: its database answers (the latest background reading). The service's
   * state is left out on purpose: a service that is down is no reason to take the store's pods out of traffic.
   */
  async isReady(key = 'invoice_payments'): Promise<InvoicePaymentsHealthResult> {
    const { backlog } = await this.latest();
    if (backlog) return { [key]: { status: 'up', database: 'up' } };
    return { [key]: { status: 'down', database: 'down', problems: ['database: not answering'] } };
  }

  override onModuleDestroy(): Promise<void> {
    this.closed = true;
    return super.onModuleDestroy();
  }

  /** The latest reading; the first call of a process starts the background checks and waits for their first. */
  private async latest(): Promise<Reading> {
    if (!this.closed) this.start();
    if (!this.reading) await this.runOnce();
    return this.reading!;
  }

  /** One background round: the address and the queues (each bounded), then a probe if the service was quiet. */
  protected async round(): Promise<void> {
    try {
      const within = timeout(this.options.probeTimeoutMs, TimeoutStrategy.Aggressive);
      const [config, backlog] = await Promise.allSettled([
        within.execute(() => this.gateway.baseUrl()),
        within.execute(() => readBacklog(this.dataSource, this.clock.now())),
      ]);
      const baseUrl =
        config.status === 'fulfilled' ? config.value.replace(/\/+$/, '') : (this.reading?.baseUrl ?? null);
      this.reading = { baseUrl, backlog: backlog.status === 'fulfilled' ? backlog.value : null };
      if (baseUrl !== null) this.probeIfQuiet(baseUrl);
    } catch {
      // A round that failed as a whole read nothing: reported as the database not answering.
      this.reading = { baseUrl: this.reading?.baseUrl ?? null, backlog: null };
    }
  }

  /** The newest word on the service at `baseUrl`: the module's latest call to it, or the latest probe's end. */
  private newest(baseUrl: string): LastCall | null {
    const call = lastCallTo(baseUrl);
    const probed = this.probed?.baseUrl === baseUrl ? this.probed : null;
    if (!call || !probed) return call ?? probed;
    return call.at >= probed.at ? call : probed;
  }

  /** Asks the service once (a one-item list) when it gave no answer for `probeIntervalMs`, unless a probe runs. */
  private probeIfQuiet(baseUrl: string): void {
    this.giveUpLateProbe();
    const last = this.newest(baseUrl);
    if (this.probe || (last && this.clock.now() - last.at <= this.options.probeIntervalMs)) return;
    const probe = { baseUrl, startedAt: this.clock.now() };
    this.probe = probe;
    this.gateway.listInvoices({ limit: 1 }).then(
      () => this.endProbe(probe, 'ok', this.clock.now()),
      (err: unknown) => this.endProbe(probe, probeFailure(err), this.clock.now()),
    );
  }

  /**
   * A hanging service: the probe is given up once `probeTimeoutMs` have passed on the module's clock (reported
   * `timeout` as of its deadline; its own call ends on the client's timeout). Every round and every check looks, so
   * a check reports it as soon as the deadline has passed, and a test moves the clock instead of waiting.
   */
  private giveUpLateProbe(): void {
    const probe = this.probe;
    const deadline = probe ? probe.startedAt + this.options.probeTimeoutMs : Infinity;
    if (probe && this.clock.now() >= deadline) this.endProbe(probe, 'timeout', deadline);
  }

  private endProbe(probe: { baseUrl: string; startedAt: number }, outcome: string, at: number): void {
    if (this.probe !== probe) return;
    this.probe = null;
    this.probed = { baseUrl: probe.baseUrl, at, outcome };
  }

  private service(baseUrl: string | null) {
    this.giveUpLateProbe();
    const last = baseUrl === null ? null : this.newest(baseUrl);
    const outcome = last?.outcome ?? 'none';
    return {
      // `null` until the first answer (or probe deadline) of this process.
      reachable: last === null ? null : !UNREACHABLE.includes(outcome),
      credentialValid: outcome !== 'authentication',
      lastCall: outcome,
      lastCallAgeSeconds: last ? Math.round((this.clock.now() - last.at) / 1000) : null,
    };
  }
}

/** A probe's failure as an outcome: the error's kind; a connection refused before sending is `not_configured`. */
function probeFailure(err: unknown): string {
  const { kind, sent } = (err ?? {}) as { kind?: unknown; sent?: unknown };
  return kind === 'validation' && sent === false ? 'not_configured' : kindOf(err);
}
