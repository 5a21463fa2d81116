import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { InvoicePaymentsHealthIndicator } from '../../src/index';

/** docs/observability.md's health controller, as a store writes it: liveness, readiness, and the whole report. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly payments: InvoicePaymentsHealthIndicator,
  ) {}

  /** Liveness: the process answers. Nothing of the service: restarting the pod cures none of its faults. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** Readiness: this instance can take work (its database answers). */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.payments.isReady('invoice_payments')]);
  }

  /** Everything, for monitoring: the service, the credential, the queues. Not a Kubernetes probe. */
  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.payments.isHealthy('invoice_payments')]);
  }
}

@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController] })
export class HealthModule {}
