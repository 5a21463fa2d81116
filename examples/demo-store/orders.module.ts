import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InvoiceRecord } from '../../src/index';
import { DemoOrder } from './order.entity';
import { OrdersService } from './orders.service';

/**
 * The store's orders. The payment module imports it too, for the order port's dependencies: the orders, and the
 * module's invoice records (which attempt of an order is the latest).
 */
@Module({
  imports: [TypeOrmModule.forFeature([DemoOrder, InvoiceRecord])],
  providers: [OrdersService],
  exports: [OrdersService, TypeOrmModule],
})
export class OrdersModule {}
