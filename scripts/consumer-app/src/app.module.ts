import { Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  InvoicePaymentsModule,
} from 'nestjs-invoice-payments';
import { OrderPaymentAdapter } from './order-payment.adapter';
import { CreateOrders1700000000000, Order } from './order.entity';

/** README step 2: TypeORM (here the embedded SQLite), the event bus and the module, options from a factory. */
@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'better-sqlite3',
      database: process.env.DATABASE_PATH ?? ':memory:',
      entities: [...INVOICE_PAYMENTS_ENTITIES, Order],
      migrations: [...INVOICE_PAYMENTS_MIGRATIONS, CreateOrders1700000000000],
      migrationsRun: true,
    }),
    EventEmitterModule.forRoot(),
    InvoicePaymentsModule.forRootAsync({
      imports: [TypeOrmModule.forFeature([Order])],
      useFactory: () => ({
        gateway: {
          baseUrl: process.env.PAYMENTS_BASE_URL!,
          accessToken: process.env.PAYMENTS_TOKEN!,
          mode: 'sandbox',
        },
        checkout: { publicWebhookUrl: process.env.PAYMENTS_WEBHOOK_URL },
        admin: {
          adminKey: process.env.PAYMENTS_ADMIN_KEY,
          encryption: { keys: { k1: process.env.PAYMENTS_KEY_K1! }, currentKeyId: 'k1' },
        },
      }),
      orderPort: OrderPaymentAdapter,
    }),
    TypeOrmModule.forFeature([Order]),
  ],
})
export class AppModule {}
