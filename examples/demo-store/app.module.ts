import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  initializeDataSource,
  InvoicePaymentsModule,
} from '../../src/index';
import { AdminKeyGuard, DEMO_ADMIN_KEY } from './admin-key.guard';
import { AdminOrdersController } from './admin.controller';
import type { DemoDatabase } from './config';
import { ShopperErrorsFilter } from './gateway-errors.filter';
import { DEMO_STORE_MIGRATIONS } from './migrations';
import { OrderPaymentAdapter } from './order-payment.adapter';
import { OrderPaymentsService } from './order-payments.service';
import { DemoOrder } from './order.entity';
import { OrdersModule } from './orders.module';
import { DEMO_GATEWAY_URL, ShopController } from './shop.controller';
import { StorefrontController } from './storefront.controller';

export interface DemoAppOptions {
  database: DemoDatabase;
  adminKey: string;
  /** Key encrypting the access token the module stores (32 bytes, base64). */
  encryptionKey: string;
  /** How often the shipping worker looks for tracking codes to post, in ms. */
  trackingPollMs: number;
  /** See `DemoConfig.unknownInvoiceWindowMs`. */
  unknownInvoiceWindowMs?: number;
  /** The payment service's base URL, for the storefront page (its card script). */
  gatewayUrl: string;
}

/**
 * The store backend: its orders, storefront and admin endpoints, and the payment module installed the way a host
 * installs it. The service's address and credential are not options here: the store owner enters them through
 * the module's admin settings API (see `bootstrap.ts`), as in production.
 */
@Module({})
export class DemoAppModule {
  static register(options: DemoAppOptions): DynamicModule {
    return {
      module: DemoAppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...options.database,
            // The module's tables and the store's own, each created by its migrations at start.
            entities: [...INVOICE_PAYMENTS_ENTITIES, DemoOrder],
            migrations: [...INVOICE_PAYMENTS_MIGRATIONS, ...DEMO_STORE_MIGRATIONS],
            migrationsRun: true,
            synchronize: false,
            logging: false,
          }),
          // Several demo instances on one PostgreSQL database migrate one at a time.
          dataSourceFactory: initializeDataSource,
        }),
        EventEmitterModule.forRoot(),
        OrdersModule,
        InvoicePaymentsModule.forRoot({
          // Left empty on purpose: set at runtime through `PUT /admin/invoice-payments/settings`.
          gateway: { baseUrl: '', accessToken: '', mode: 'sandbox' },
          admin: { adminKey: options.adminKey, encryption: { keys: { demo: options.encryptionKey } } },
          // A short poll so the walkthrough sees the tracking code reach the service within a second.
          shipping: {
            pollIntervalMs: options.trackingPollMs,
            backoff: { initialDelayMs: 1000, maxDelayMs: 60_000 },
          },
          notifications: { pollIntervalMs: 1000 },
          webhooks: options.unknownInvoiceWindowMs
            ? { inbox: { unknownInvoiceWindowMs: options.unknownInvoiceWindowMs } }
            : {},
          orderPort: OrderPaymentAdapter,
          imports: [OrdersModule],
        }),
      ],
      controllers: [StorefrontController, ShopController, AdminOrdersController],
      providers: [
        OrderPaymentsService,
        AdminKeyGuard,
        // App-wide: a 404 never echoes the path, an unexpected error never shows its details.
        { provide: APP_FILTER, useClass: ShopperErrorsFilter },
        { provide: DEMO_ADMIN_KEY, useValue: options.adminKey },
        { provide: DEMO_GATEWAY_URL, useValue: options.gatewayUrl },
      ],
    };
  }
}
