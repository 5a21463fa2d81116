import { DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import {
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  initializeDataSource,
  InvoicePaymentsModule,
} from 'nestjs-invoice-payments';
import { OrderPaymentAdapter } from './order-payment.adapter.js';
import { CreateOrders1700000000000, Order } from './order.entity.js';

/**
 * README step 2: TypeORM with the module's entities and migrations (initialized by `initializeDataSource`), the event
 * bus and the module. The consumer test
 * runs it on each database (`CONSUMER_DATABASE`: `sqlite`, the embedded one, or `postgres` at `DATABASE_URL`) and
 * each way of giving the options (`CONSUMER_OPTIONS`: `forRootAsync`, from a factory, or `forRoot`). A dynamic module
 * because `forRoot` takes the options when the module is built, after the sandbox has started; `extra`: the
 * host's own modules (its `/health`).
 */
@Module({})
export class AppModule {
  static register(extra: NonNullable<DynamicModule['imports']> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...database(),
            entities: [...INVOICE_PAYMENTS_ENTITIES, Order],
            migrations: [...INVOICE_PAYMENTS_MIGRATIONS, CreateOrders1700000000000],
            migrationsRun: true,
          }),
          dataSourceFactory: initializeDataSource,
        }),
        EventEmitterModule.forRoot(),
        process.env.CONSUMER_OPTIONS === 'forRoot'
          ? InvoicePaymentsModule.forRoot({
              ...paymentOptions(),
              imports: [TypeOrmModule.forFeature([Order])],
              orderPort: OrderPaymentAdapter,
            })
          : InvoicePaymentsModule.forRootAsync({
              imports: [TypeOrmModule.forFeature([Order])], // what the order port injects
              useFactory: paymentOptions,
              orderPort: OrderPaymentAdapter,
            }),
        TypeOrmModule.forFeature([Order]),
        ...extra,
      ],
    };
  }
}

function database(): TypeOrmModuleOptions {
  return process.env.CONSUMER_DATABASE === 'postgres'
    ? { type: 'postgres', url: process.env.DATABASE_URL }
    : { type: 'better-sqlite3', database: process.env.DATABASE_PATH ?? ':memory:' };
}

function paymentOptions() {
  return {
    gateway: {
      baseUrl: process.env.PAYMENTS_BASE_URL!,
      accessToken: process.env.PAYMENTS_TOKEN!,
      mode: 'sandbox' as const,
    },
    checkout: { publicWebhookUrl: process.env.PAYMENTS_WEBHOOK_URL },
    admin: {
      adminKey: process.env.PAYMENTS_ADMIN_KEY,
      encryption: { keys: { k1: process.env.PAYMENTS_KEY_K1! }, currentKeyId: 'k1' },
    },
  };
}
