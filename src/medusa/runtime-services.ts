import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CheckoutConfig } from '../checkout/checkout-config.service';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { RefundService } from '../refunds/refund.service';
import { InvoicePaymentsSettingsService } from '../settings/settings.service';
import { TrackingService } from '../shipping/tracking.service';

/**
 * What the Medusa adapter calls in its runtime, injected into the runtime's own root module from what
 * `InvoicePaymentsModule` exports: the adapter never searches the app for a class.
 */
@Injectable()
export class MedusaRuntimeServices {
  constructor(
    readonly provider: InvoicePaymentProvider,
    readonly checkout: CheckoutConfig,
    readonly tracking: TrackingService,
    readonly refunds: RefundService,
    readonly settings: InvoicePaymentsSettingsService,
    @InjectDataSource() readonly dataSource: DataSource,
  ) {}
}
