import { DynamicModule, Module, Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { resolveShippingOptions } from '../options/shipping.options';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { SHIPPING_OPTIONS } from './shipping-options';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingService } from './tracking.service';
import { TrackingWorker } from './tracking.worker';
import type { ShippingModuleOptions } from '../options/shipping.options';

/**
 * Shipping: shipment → tracking outbox → worker → the service (§4.6, A9). Needs TypeORM, `EventEmitterModule` and
 * a `GatewayClient` (the root module provides them, and `optionsProvider` for `SHIPPING_OPTIONS`).
 */
@Module({})
export class ShippingModule {
  static forRoot(
    options: ShippingModuleOptions = {},
    extras: { optionsProvider?: Provider } = {},
  ): DynamicModule {
    const resolved = resolveShippingOptions(options); // refuses bad options when the module is defined
    return {
      module: ShippingModule,
      imports: [TypeOrmModule.forFeature([TrackingOutbox, InvoiceRecord])],
      providers: [
        extras.optionsProvider ?? { provide: SHIPPING_OPTIONS, useValue: resolved },
        TrackingService,
        TrackingWorker,
      ],
      exports: [SHIPPING_OPTIONS, TrackingService, TrackingWorker],
    };
  }
}
