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

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.payments.isReady('invoice_payments')]);
  }

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.payments.isHealthy('invoice_payments')]);
  }
}

@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController] })
export class HealthModule {}
