import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { resolveShippingOptions, type ShippingModuleOptions } from '../options/shipping.options';
import { section } from '../options/resolve';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { SHIPPING_OPTIONS } from './constants';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingService } from './tracking.service';
import { TrackingWorker } from './tracking.worker';

/**
 * Shipping: shipment → tracking outbox → worker → the service (§4.6, A9). Needs TypeORM, `EventEmitterModule` and
 * a `GatewayClient`; `fromRoot`: its options are the root module's `shipping` (and `workers`).
 */
@Module({})
export class ShippingModule {
  static forRoot(options: ShippingModuleOptions = {}, fromRoot = false): DynamicModule {
    const resolved = resolveShippingOptions(options); // refuses bad options when the module is defined
    return {
      module: ShippingModule,
      imports: [TypeOrmModule.forFeature([TrackingOutbox, InvoiceRecord])],
      providers: [
        fromRoot
          ? section(SHIPPING_OPTIONS, 'shipping', resolveShippingOptions)
          : { provide: SHIPPING_OPTIONS, useValue: resolved },
        TrackingService,
        TrackingWorker,
      ],
      exports: [SHIPPING_OPTIONS, TrackingService, TrackingWorker],
    };
  }
}
