import { Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ShopperPaymentsService } from './shopper-payments.service';
import type { ShopperPaymentView } from './shopper-view';

/**
 * The shopper's status route, addressed by the `statusToken` of `initiatePayment` (docs/storefront-routes.md):
 * `GET /invoice-payments/payments/:token` and `POST /invoice-payments/payments/:token/renewal`.
 */
@Controller('invoice-payments/payments')
export class ShopperStatusController {
  constructor(private readonly payments: ShopperPaymentsService) {}

  @Get(':token')
  // The shopper's own data: no shared cache keeps it.
  @Header('Cache-Control', 'no-store')
  view(@Param('token') token: string): Promise<ShopperPaymentView> {
    return this.payments.readByToken(token);
  }

  @Post(':token/renewal')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  renew(@Param('token') token: string): Promise<ShopperPaymentView> {
    return this.payments.renewByToken(token);
  }
}
