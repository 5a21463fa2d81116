import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DemoOrder } from './order.entity';
import { OrdersService } from './orders.service';

/** The store's orders. The payment module imports it too, for the order port's dependencies. */
@Module({
  imports: [TypeOrmModule.forFeature([DemoOrder])],
  providers: [OrdersService],
  exports: [OrdersService],
})
export class OrdersModule {}
