import { Body, Controller, Get, HttpCode, Param, Post, UseGuards, UsePipes } from '@nestjs/common';
import { AdminKeyGuard } from './admin-key.guard';
import { RefundOrderDto, ShipOrderDto } from './order.dto';
import { IdPipe } from './id.pipe';
import { OrderPaymentsService } from './order-payments.service';
import { OrdersService } from './orders.service';
import { strictValidation } from './storefront.controller';
import { OrderView, toOrderView } from './views';

/** What the store's staff do: look at orders, ship them with a tracking code, refund, cancel. */
@Controller('admin/orders')
@UseGuards(AdminKeyGuard)
@UsePipes(strictValidation)
export class AdminOrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly payments: OrderPaymentsService,
  ) {}

  @Get()
  async list(): Promise<OrderView[]> {
    return (await this.orders.list()).map(toOrderView);
  }

  @Get(':id')
  async get(@Param('id', IdPipe) id: string): Promise<OrderView> {
    return toOrderView(await this.orders.get(id));
  }

  /** Ships a paid order: the module posts the tracking code to the service in the background. */
  @Post(':id/ship')
  @HttpCode(200)
  async ship(@Param('id', IdPipe) id: string, @Body() dto: ShipOrderDto): Promise<OrderView> {
    return toOrderView(await this.payments.ship(id, dto));
  }

  @Post(':id/refund')
  @HttpCode(200)
  async refund(@Param('id', IdPipe) id: string, @Body() dto: RefundOrderDto): Promise<OrderView> {
    return toOrderView(await this.payments.refund(id, dto));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Param('id', IdPipe) id: string): Promise<OrderView> {
    return toOrderView(await this.payments.cancel(id));
  }
}
