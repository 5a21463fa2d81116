import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { OrderPaymentPort, PaymentStatusChange } from 'nestjs-invoice-payments';
import { Repository } from 'typeorm';
import { Order } from './order.entity.js';

/** README step 3: the port, with a dependency of the host's (the order repository, given through `imports`). */
@Injectable()
export class OrderPaymentAdapter implements OrderPaymentPort {
  constructor(@InjectRepository(Order) private readonly orders: Repository<Order>) {}

  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    await this.orders.update({ id: change.orderId }, { paymentStatus: change.current.orderPaymentStatus });
  }
}
