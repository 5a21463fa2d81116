import { Global, Module } from '@nestjs/common';
import { INVOICE_PAYMENTS_OPTIONS } from '../invoice-payments.constants';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import { HEALTH_OPTIONS } from './constants';
import { InvoicePaymentsHealthIndicator } from './health.indicator';
import { resolveHealthOptions } from './health.options';
import { SignalsService } from './signals.service';

/**
 * The health indicator and the metrics the module's events feed. Global, so a host's health module injects the
 * indicator without importing the payment module (every token here is this package's own).
 */
@Global()
@Module({
  providers: [
    {
      provide: HEALTH_OPTIONS,
      useFactory: (options: InvoicePaymentsModuleOptions) => resolveHealthOptions(options.health),
      inject: [INVOICE_PAYMENTS_OPTIONS],
    },
    InvoicePaymentsHealthIndicator,
    SignalsService,
  ],
  exports: [InvoicePaymentsHealthIndicator],
})
export class ObservabilityModule {}
