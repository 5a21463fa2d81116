import { Module } from '@nestjs/common';
import { PixRenewalService } from './pix-renewal.service';
import { ShopperPaymentsService } from './shopper-payments.service';
import { ShopperStatusController } from './shopper-status.controller';

/** The shopper's status route; the checkout's providers come from the global `CheckoutModule`. */
@Module({
  controllers: [ShopperStatusController],
  providers: [PixRenewalService, ShopperPaymentsService],
  exports: [PixRenewalService],
})
export class ShopperStatusModule {}
