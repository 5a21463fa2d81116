import { Global, Module } from '@nestjs/common';
import { section } from '../options/resolve';
import { HEALTH_OPTIONS, InvoicePaymentsHealthIndicator, resolveHealthOptions } from './health.indicator';
import { SignalsService } from './signals.service';

/**
 * The health indicator and the metrics the module's events feed. Global, so a host's health module injects the
 * indicator without importing the payment module (every token here is this package's own).
 */
@Global()
@Module({
  providers: [
    section(HEALTH_OPTIONS, 'health', resolveHealthOptions),
    InvoicePaymentsHealthIndicator,
    SignalsService,
  ],
  exports: [InvoicePaymentsHealthIndicator],
})
export class ObservabilityModule {}
