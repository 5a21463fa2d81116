import { Global, Module } from '@nestjs/common';
import { resolveRefundsOptions } from '../options/refunds.options';
import { section } from '../options/resolve';
import { RefundSettlementService } from './refund-settlement.service';
import { RefundService } from './refund.service';
import { REFUNDS_OPTIONS, RefundStore } from './refund.store';

/** Global so the checkout's provider and the admin API reach the one `RefundService`. */
@Global()
@Module({
  providers: [
    section(REFUNDS_OPTIONS, 'refunds', resolveRefundsOptions),
    RefundStore,
    RefundSettlementService,
    RefundService,
  ],
  exports: [REFUNDS_OPTIONS, RefundService, RefundSettlementService],
})
export class RefundsModule {}
