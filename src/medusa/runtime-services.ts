import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvoiceCreationService } from '../checkout/invoice-creation.service';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { ShopperPaymentsService } from '../checkout/shopper-payments.service';
import { RefundService } from '../refunds/refund.service';
import { InvoicePaymentsSettingsService } from '../settings/settings.service';
import { TrackingService } from '../shipping/tracking.service';

/** What the adapter calls in its runtime, injected from what `InvoicePaymentsModule` exports (no search by class). */
@Injectable()
export class MedusaRuntimeServices {
  constructor(
    readonly provider: InvoicePaymentProvider,
    readonly checkout: InvoiceCreationService,
    readonly tracking: TrackingService,
    readonly refunds: RefundService,
    readonly settings: InvoicePaymentsSettingsService,
    readonly shopper: ShopperPaymentsService,
    @InjectDataSource() readonly dataSource: DataSource,
  ) {}
}
