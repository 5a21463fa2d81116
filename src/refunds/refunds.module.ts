import { Global, Module } from '@nestjs/common';
import { INVOICE_PAYMENTS_OPTIONS } from '../invoice-payments.constants';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import { workersEnabled } from '../options/resolve';
import { REFUNDS_OPTIONS } from './refund.options';
import { RefundSettlementService } from './refund-settlement.service';
import { RefundSettlementWorker } from './refund-settlement.worker';
import { RefundService } from './refund.service';
import { RefundStore } from './refund.store';
import { resolveRefundsOptions } from '../options/refunds.options';

/** Global so the checkout's provider and the admin API reach the one `RefundService`. */
@Global()
@Module({
  providers: [
    {
      provide: REFUNDS_OPTIONS,
      useFactory: (options: InvoicePaymentsModuleOptions) =>
        resolveRefundsOptions(options.refunds, workersEnabled(options)),
      inject: [INVOICE_PAYMENTS_OPTIONS],
    },
    RefundStore,
    RefundSettlementService,
    RefundSettlementWorker,
    RefundService,
  ],
  exports: [REFUNDS_OPTIONS, RefundService, RefundSettlementService, RefundSettlementWorker],
})
export class RefundsModule {}
