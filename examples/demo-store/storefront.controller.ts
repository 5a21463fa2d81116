import { Body, Controller, Get, HttpCode, Ip, Param, Post, UsePipes, ValidationPipe } from '@nestjs/common';
import { CATALOG, CatalogProduct } from './catalog';
import { CreateOrderDto, PayOrderDto } from './order.dto';
import { IdPipe } from './id.pipe';
import { OrderPaymentsService } from './order-payments.service';
import { OrdersService } from './orders.service';
import { OrderView, PaymentView, toOrderView, toPaymentView } from './views';

/** Input errors answer 400 naming each field (`items.0.quantity must be at least 1`); unknown fields are refused. */
export const strictValidation = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
});

/** What a storefront calls: the catalog, placing an order, paying it, looking at it. */
@Controller('store')
@UsePipes(strictValidation)
export class StorefrontController {
  constructor(
    private readonly orders: OrdersService,
    private readonly payments: OrderPaymentsService,
  ) {}

  @Get('products')
  products(): readonly CatalogProduct[] {
    return CATALOG;
  }

  @Post('orders')
  async create(@Body() dto: CreateOrderDto): Promise<OrderView> {
    return toOrderView(await this.orders.create(dto));
  }

  @Get('orders/:id')
  async get(@Param('id', IdPipe) id: string): Promise<OrderView> {
    return toOrderView(await this.orders.get(id));
  }

  /**
   * Pays the order: PIX answers the copy-and-paste code and the QR image, bank slip the digitable line and link,
   * card the brand and last digits (the card itself arrives as a token from the service's script).
   */
  @Post('orders/:id/payment')
  @HttpCode(200)
  async pay(
    @Param('id', IdPipe) id: string,
    @Body() dto: PayOrderDto,
    @Ip() ip: string,
  ): Promise<{ order: OrderView; payment: PaymentView }> {
    const { order, session } = await this.payments.pay(id, dto, publicIp(ip));
    return { order: toOrderView(order), payment: await toPaymentView(session) };
  }
}

/** The customer's IP for `client.ip`; a loopback or IPv4-mapped address is not worth sending. */
function publicIp(ip: string | undefined): string | undefined {
  const plain = ip?.replace(/^::ffff:/, '');
  return !plain || plain === '::1' || plain.startsWith('127.') ? undefined : plain;
}
