import { Global, Module } from '@nestjs/common';
import { CREATION_RESOLVER, LATE_INVOICE_ADOPTER } from '../core/ports';
import { resolveCheckoutOptions } from '../options/checkout.options';
import { section } from '../options/resolve';
import { CHECKOUT_OPTIONS } from './checkout.tokens';
import { CreationOutcomes } from './creation-outcomes.service';
import { InvoiceCreationService } from './invoice-creation.service';
import { InvoicePaymentProvider } from './invoice-payment.provider';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import { LateInvoiceService } from './late-invoice.service';
import { OnePayableInvoice } from './one-payable-invoice.service';
import { PixRenewalService } from './pix-renewal.service';
import { ShopperPaymentsService } from './shopper-payments.service';
import { ShopperStatusController } from './shopper-status.controller';

/**
 * The checkout and the shopper's route. Global so the admin API and the host reach the one provider; its tokens are
 * the package's own.
 */
@Global()
@Module({
  controllers: [ShopperStatusController],
  providers: [
    section(CHECKOUT_OPTIONS, 'checkout', resolveCheckoutOptions),
    InvoiceRecordStore,
    InvoiceCreationService,
    CreationOutcomes,
    OnePayableInvoice,
    InvoicePaymentProvider,
    LateInvoiceService,
    { provide: LATE_INVOICE_ADOPTER, useExisting: LateInvoiceService },
    { provide: CREATION_RESOLVER, useExisting: InvoiceCreationService },
    PixRenewalService,
    ShopperPaymentsService,
  ],
  exports: [
    InvoiceCreationService,
    InvoicePaymentProvider,
    InvoiceRecordStore,
    LateInvoiceService,
    LATE_INVOICE_ADOPTER,
    CREATION_RESOLVER,
    ShopperPaymentsService,
  ],
})
export class CheckoutModule {}
