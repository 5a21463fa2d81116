import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import { InvoicePaymentsSettingsService } from '../settings/settings.service';
import { readBacklog } from './backlog';
import type { ResolvedHealthOptions } from './health.options';
import { lastCallTo } from './otel';

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
 * A health indicator for `@nestjs/terminus` (which is not needed to use it): the service reachable and the
 * credential valid (judged from the module's own calls, and a probe at most once per `health.probeIntervalMs`), the
 * database, the webhook inbox's backlog and oldest delivery, dead letters, the tracking outbox's lag and the status
 * changes waiting for the host's port, each against the `health` options' thresholds.
 *
 * @example
 * \@Get('health') \@HealthCheck()
 * check() { return this.health.check([() => this.payments.isHealthy('invoice_payments')]); }
 */
@Injectable()
export class InvoicePaymentsHealthIndicator {
  private probing: Promise<unknown> | null = null;

  constructor(
    @Inject(HEALTH_OPTIONS) private readonly options: ResolvedHealthOptions,
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
      if (backlog.inbox.count > o.maxInboxBacklog)
        problems.push('inbox: backlog over health.maxInboxBacklog');
      if (backlog.inbox.oldestAgeSeconds * 1000 > o.maxInboxAgeMs)
        problems.push('inbox: oldest over maxInboxAgeMs');
      if (o.maxDeadLetters !== null && dead > o.maxDeadLetters)
        problems.push('dead letters: over maxDeadLetters');
      if (backlog.tracking.oldestAgeSeconds * 1000 > o.maxTrackingLagMs)
        problems.push('tracking: over maxTrackingLagMs');
      if (backlog.port.oldestAgeSeconds * 1000 > o.maxPortDelayMs)
        problems.push('host port: over maxPortDelayMs');
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
